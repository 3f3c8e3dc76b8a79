import type { Meta, StoryObj } from '@storybook/react-vite';
import { venues } from '../data/venues';
import { VenueMedia } from './VenueMedia';

/** A venue's photograph, or the designed placeholder when there is none or it fails to load. */
const meta = {
  title: 'Components/VenueMedia',
  component: VenueMedia,
  args: { venue: venues[0] },
  decorators: [(Story) => <div style={{ maxWidth: '32rem' }}><Story /></div>],
} satisfies Meta<typeof VenueMedia>;

export default meta;
type Story = StoryObj<typeof meta>;

export const Photograph: Story = {};

/** `image: null`: no photograph yet. */
export const NoPhotograph: Story = { args: { venue: { ...venues[0], image: null } } };

/** The file is missing: the placeholder replaces the broken image. */
export const MissingFile: Story = {
  args: { venue: { ...venues[0], image: '/media/does-not-exist.webp' } },
};
