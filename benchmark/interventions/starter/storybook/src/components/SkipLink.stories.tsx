import type { Meta, StoryObj } from '@storybook/react-vite';
import { SkipLink } from './SkipLink';

/** The first focusable element of every page; it shows on focus (press Tab). */
const meta = {
  title: 'Components/SkipLink',
  component: SkipLink,
  decorators: [
    (Story) => (
      <>
        <Story />
        <main id="main" tabIndex={-1}>
          <p>Main content</p>
        </main>
      </>
    ),
  ],
} satisfies Meta<typeof SkipLink>;

export default meta;
type Story = StoryObj<typeof meta>;

export const Default: Story = {};
