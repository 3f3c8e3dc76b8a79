import type { Meta, StoryObj } from '@storybook/react-vite';
import { LogoMark } from './Logo';

/** The Atlas Rooms mark (decorative: the wordmark beside it names the brand). */
const meta = {
  title: 'Components/LogoMark',
  component: LogoMark,
} satisfies Meta<typeof LogoMark>;

export default meta;
type Story = StoryObj<typeof meta>;

export const Default: Story = {};
