/* The blind reviewer page: renders the packet data embedded above (no network, no innerHTML of
   packet content) and exports the reviewer's sheet row in the format the ingest reads. */
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('packet-data').textContent);
  var STORE = 'siteos-review:';

  function el(tag, attrs, kids) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) {
      if (k === 'text') node.textContent = attrs[k];
      else if (k === 'className') node.className = attrs[k];
      else node.setAttribute(k, attrs[k]);
    });
    (kids || []).forEach(function (kid) {
      node.appendChild(typeof kid === 'string' ? document.createTextNode(kid) : kid);
    });
    return node;
  }

  /* ---- screenshots and lightbox ---- */
  var order = [];
  var lightbox = document.getElementById('lightbox');
  var current = 0;
  function show(index) {
    current = (index + order.length) % order.length;
    var shot = order[current];
    var img = document.getElementById('lightbox-img');
    img.src = shot.src;
    img.alt = shot.label;
    document.getElementById('lightbox-caption').textContent = shot.label;
    if (!lightbox.open) lightbox.showModal();
  }
  document.getElementById('lb-prev').onclick = function () { show(current - 1); };
  document.getElementById('lb-next').onclick = function () { show(current + 1); };
  document.getElementById('lb-close').onclick = function () { lightbox.close(); };
  lightbox.addEventListener('keydown', function (e) {
    if (e.key === 'ArrowLeft') show(current - 1);
    if (e.key === 'ArrowRight') show(current + 1);
  });
  lightbox.addEventListener('click', function (e) { if (e.target === lightbox) lightbox.close(); });

  var groups = {};
  var names = [];
  data.shots.forEach(function (shot) {
    var key = shot.page + ' · ' + shot.state;
    if (!groups[key]) { groups[key] = []; names.push(key); }
    groups[key].push(shot);
  });
  var rows = document.getElementById('shot-rows');
  names.forEach(function (key) {
    var grid = el('div', { className: 'shot-grid' });
    groups[key].sort(function (a, b) { return a.width - b.width; }).forEach(function (shot) {
      var index = order.length;
      shot.label = key + ' · ' + shot.viewport;
      order.push(shot);
      var button = el('button', { type: 'button', className: 'shot', 'aria-label': 'Enlarge ' + shot.label },
        [el('img', { src: shot.src, alt: shot.label, loading: 'lazy' })]);
      button.onclick = function () { show(index); };
      grid.appendChild(el('figure', {}, [button, el('figcaption', { text: shot.width ? shot.width + ' px' : shot.viewport })]));
    });
    rows.appendChild(el('div', { className: 'shot-row' }, [el('h3', { text: key }), grid]));
  });
  if (!order.length) rows.appendChild(el('p', { text: 'No screenshots in this packet.' }));

  /* ---- video ---- */
  var slot = document.getElementById('video-slot');
  if (data.video) slot.appendChild(el('video', { src: data.video, controls: '', preload: 'metadata', className: 'packet-video' }));
  else slot.appendChild(el('p', { text: 'No video in this packet.' }));

  /* ---- diff with a small highlighter ---- */
  var KW = '\\b(?:const|let|var|function|return|if|else|for|while|do|import|export|from|default|type|interface|extends|implements|class|new|async|await|try|catch|finally|throw|switch|case|break|continue|typeof|instanceof|in|of|as|null|undefined|true|false|void|enum|readonly|keyof)\\b';
  var RULES = {
    script: new RegExp('(\\/\\/.*$|\\/\\*.*?\\*\\/)|("(?:[^"\\\\]|\\\\.)*"|\'(?:[^\'\\\\]|\\\\.)*\'|`(?:[^`\\\\]|\\\\.)*`)|(' + KW + ')|(\\b\\d+(?:\\.\\d+)?\\b)|(<\\/?[A-Za-z][\\w.-]*)', 'g'),
    css: /(\/\*.*?\*\/)|("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')|(@[\w-]+|!important)|(-?\b\d+(?:\.\d+)?(?:px|rem|em|%|vh|vw|s|ms)?\b|#[0-9a-fA-F]{3,8}\b)|([\w-]+(?=\s*:))/g,
    markup: /(<!--.*?-->)|("(?:[^"\\]|\\.)*")|(&\w+;)|(\b\d+\b)|(<\/?[A-Za-z][\w.-]*)/g,
    plain: null
  };
  var CLASSES = ['t-com', 't-str', 't-kw', 't-num', 't-tag'];
  function language(path) {
    var ext = (path.split('.').pop() || '').toLowerCase();
    if (['ts', 'tsx', 'js', 'jsx', 'mjs', 'cjs', 'json'].indexOf(ext) >= 0) return 'script';
    if (['css', 'scss'].indexOf(ext) >= 0) return 'css';
    if (['html', 'svg', 'xml'].indexOf(ext) >= 0) return 'markup';
    return 'plain';
  }
  function highlight(node, text, lang) {
    var rule = RULES[lang];
    if (!rule) { node.appendChild(document.createTextNode(text)); return; }
    rule.lastIndex = 0;
    var last = 0, m;
    while ((m = rule.exec(text)) !== null) {
      if (m[0] === '') { rule.lastIndex++; continue; }
      node.appendChild(document.createTextNode(text.slice(last, m.index)));
      var group = 1;
      while (group < m.length && m[group] === undefined) group++;
      var cls = lang === 'css' && group === 5 ? 't-prop' : CLASSES[group - 1];
      node.appendChild(el('span', { className: cls, text: m[0] }));
      last = m.index + m[0].length;
    }
    node.appendChild(document.createTextNode(text.slice(last)));
  }
  var files = [];
  if (data.diff) {
    data.diff.split(/^(?=diff --git )/m).forEach(function (section) {
      if (!section.trim()) return;
      var head = /^diff --git a\/(\S+) b\/(\S+)/.exec(section);
      files.push({ path: head ? head[2] : '(preamble)', lines: section.replace(/\n$/, '').split('\n') });
    });
  }
  var list = document.getElementById('file-list');
  var holder = document.getElementById('diff-files');
  files.forEach(function (file, i) {
    var adds = 0, dels = 0;
    var pre = el('pre', { className: 'code' });
    var lang = language(file.path);
    file.lines.forEach(function (line) {
      var kind = /^(diff --git|index |--- |\+\+\+ |new file|deleted file|similarity|rename)/.test(line) ? 'head'
        : line.charAt(0) === '@' ? 'hunk' : line.charAt(0) === '+' ? 'add' : line.charAt(0) === '-' ? 'del' : 'ctx';
      if (kind === 'add') adds++;
      if (kind === 'del') dels++;
      var span = el('span', { className: 'l ' + kind });
      if (kind === 'add' || kind === 'del' || kind === 'ctx') {
        span.appendChild(document.createTextNode(line.charAt(0)));
        highlight(span, line.slice(1), lang);
      } else {
        span.textContent = line;
      }
      pre.appendChild(span);
    });
    var id = 'file-' + (i + 1);
    holder.appendChild(el('section', { className: 'file', id: id }, [el('h3', { text: file.path }), pre]));
    list.appendChild(el('li', {}, [el('a', { href: '#' + id, text: file.path }), ' +' + adds + ' −' + dels]));
  });
  if (!files.length) holder.appendChild(el('p', { text: 'No changes in this packet.' }));

  document.getElementById('progress-text').textContent = data.progress === null
    ? 'No PROGRESS.md was left in the worktree.' : data.progress;
  if (data.missing.length) document.getElementById('missing').textContent = 'Missing from this packet: ' + data.missing.join('; ') + '.';

  /* ---- rubric form and the sheet row ---- */
  var TITLES = { visual: 'Visual craft', code_quality: 'Code quality' };
  var rubric = document.getElementById('rubric');
  var inputs = {};
  Object.keys(data.ranges).forEach(function (dim) {
    var total = el('output', { className: 'total', id: 'total-' + dim, text: '—' });
    var set = el('fieldset', { id: 'dim-' + dim }, [el('legend', { text: TITLES[dim] + ' (0–' + data.ranges[dim] + ')' })]);
    data.rubric.filter(function (c) { return c.dimension === dim; }).forEach(function (c) {
      var input = el('input', { type: 'number', id: 'crit-' + c.id, name: c.id, min: '0', max: String(c.points), step: '0.5', inputmode: 'decimal' });
      inputs[c.id] = { input: input, criterion: c };
      input.addEventListener('input', totals);
      set.appendChild(el('div', { className: 'crit' }, [
        el('label', { 'for': 'crit-' + c.id, text: c.title + ' (0–' + c.points + ')' }), input, el('small', { text: c.looks_for })]));
    });
    set.appendChild(el('p', {}, ['Total: ', total, ' / ' + data.ranges[dim]]));
    rubric.appendChild(set);
  });
  function fmt(x) { return String(Math.round(x * 100) / 100); }
  function dimension(dim) {
    var crits = data.rubric.filter(function (c) { return c.dimension === dim; });
    var filled = crits.filter(function (c) { return inputs[c.id].input.value.trim() !== ''; });
    if (!filled.length) return { blank: true };
    if (filled.length < crits.length) return { error: TITLES[dim] + ': score every line or none' };
    var sum = 0, parts = [];
    for (var i = 0; i < crits.length; i++) {
      var c = crits[i], value = Number(inputs[c.id].input.value);
      if (!(value >= 0 && value <= c.points)) return { error: c.title + ': ' + inputs[c.id].input.value + ' is outside 0–' + c.points };
      sum += value;
      parts.push(c.id + ' ' + fmt(value) + '/' + c.points);
    }
    return { total: sum, parts: parts };
  }
  function totals() {
    Object.keys(data.ranges).forEach(function (dim) {
      var d = dimension(dim);
      document.getElementById('total-' + dim).textContent = d.total === undefined ? '—' : fmt(d.total);
    });
    save();
  }
  function csvCell(text) { return /[",\n\r]/.test(text) ? '"' + text.replace(/"/g, '""') + '"' : text; }
  function exportRow() {
    var error = document.getElementById('form-error');
    error.textContent = '';
    var reviewer = document.getElementById('reviewer').value.trim();
    if (!/^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(reviewer)) { error.textContent = 'Reviewer id: letters, digits, . _ - only'; return; }
    var visual = dimension('visual'), code = dimension('code_quality');
    var problem = visual.error || code.error;
    if (problem) { error.textContent = problem; return; }
    if (visual.blank && code.blank) { error.textContent = 'Nothing scored yet'; return; }
    var notes = [];
    if (!visual.blank) notes.push('visual: ' + visual.parts.join(', '));
    if (!code.blank) notes.push('code: ' + code.parts.join(', '));
    var free = document.getElementById('notes').value.replace(/\s+/g, ' ').trim();
    if (free) notes.push(free);
    var row = [data.code, visual.blank ? '' : fmt(visual.total), code.blank ? '' : fmt(code.total), csvCell(notes.join('; '))].join(',');
    var csv = data.header.join(',') + '\n' + row + '\n';
    document.getElementById('csv-out').value = csv;
    var link = document.getElementById('download');
    link.href = URL.createObjectURL(new Blob([csv], { type: 'text/csv' }));
    link.download = reviewer + '.csv';
    link.textContent = 'Download ' + reviewer + '.csv';
    link.hidden = false;
    try { localStorage.setItem(STORE + data.code + ':row', row); localStorage.setItem(STORE + 'reviewer', reviewer); } catch (e) { /* storage off */ }
  }
  document.getElementById('export').onclick = exportRow;
  function save() {
    var state = { notes: document.getElementById('notes').value };
    Object.keys(inputs).forEach(function (id) { state[id] = inputs[id].input.value; });
    try { localStorage.setItem(STORE + data.code, JSON.stringify(state)); } catch (e) { /* storage off */ }
  }
  document.getElementById('notes').addEventListener('input', save);
  try {
    var saved = JSON.parse(localStorage.getItem(STORE + data.code) || 'null');
    if (saved) {
      Object.keys(inputs).forEach(function (id) { if (saved[id] !== undefined) inputs[id].input.value = saved[id]; });
      document.getElementById('notes').value = saved.notes || '';
    }
    document.getElementById('reviewer').value = localStorage.getItem(STORE + 'reviewer') || '';
  } catch (e) { /* storage off */ }
  totals();
})();
