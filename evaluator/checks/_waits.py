"""How long a check waits, and why no wait decides a verdict by the machine's speed.

Every wait in a check ends on an observed condition; the ceilings below only bound a page that
never gets there. They are generous on purpose: on a loaded machine (two cores shared with
other work) a React re-render, a dialog's opening or a focus move can take several times its
quiet-machine time, and a ceiling that a slow but correct app can reach turns load into a
verdict. A generous ceiling costs nothing when the condition arrives (the wait ends then); it
costs its length only where the app is wrong, and then once per failing step.

`ACTION_MS` bounds one action on an element a check found (click, fill, check, select, focus):
Playwright waits until the element can take it, dispatches it, and waits for a navigation it
schedules. A correct app whose handler re-renders the page can hold the main thread for seconds
on a loaded machine (3.6 s measured for a "Clear filters" click), so an action gets the most time
of all; a read of an element that may be absent keeps Playwright's page default
(`LOOKUP_MS`), since an absent element is the common case there and an answer, not a wait.

`REACTION_MS` bounds a wait for something the contract says an action causes (a dialog opens or
closes, focus moves, the URL changes, the menu's links show). `OBSERVE_MS` bounds a wait for
"nothing else happens" (`evaluator.browser.wait_quiet`: three animation frames in a row without a
DOM mutation, a history change or an animation starting): long enough for an app's late reaction
to start under load, and it ends after three quiet frames on a quiet page.
"""

from __future__ import annotations

ACTION_MS = 15_000
LOOKUP_MS = 4000
REACTION_MS = 5000
OBSERVE_MS = 1000
