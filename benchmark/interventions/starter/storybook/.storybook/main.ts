import type { StorybookConfig } from '@storybook/react-vite';

/**
 * The component catalogue of this starter. Build it with `npm run storybook:build`
 * (offline; output in storybook-static/, which git ignores). Telemetry is off.
 */
const config: StorybookConfig = {
  stories: ['../src/**/*.stories.@(ts|tsx)'],
  framework: { name: '@storybook/react-vite', options: {} },
  core: { disableTelemetry: true, disableWhatsNewNotifications: true },
  staticDirs: ['../public'],
};

export default config;
