import type { Preview } from '@storybook/react-vite';
import '../src/styles/tokens.css';
import '../src/styles/base.css';
import '../src/styles/site.css';

const preview: Preview = {
  parameters: { layout: 'padded' },
};

export default preview;
