import type { Meta, StoryObj } from '@storybook/react-vite';
import { SiteHeader } from './SiteHeader';

/** The site's header: the brand and the primary navigation (no mobile menu yet). */
const meta = {
  title: 'Components/SiteHeader',
  component: SiteHeader,
  args: { currentPath: '/' },
  parameters: { layout: 'fullscreen' },
} satisfies Meta<typeof SiteHeader>;

export default meta;
type Story = StoryObj<typeof meta>;

export const OnHome: Story = {};

/** On the catalogue: "Venues" is the current page. */
export const OnVenues: Story = { args: { currentPath: '/venues' } };
