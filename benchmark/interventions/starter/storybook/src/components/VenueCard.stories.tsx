import type { Meta, StoryObj } from '@storybook/react-vite';
import { venues } from '../data/venues';
import { VenueCard } from './VenueCard';

/** A venue in the catalogue grid: photograph, type and area, name linking to its page, facts. */
const meta = {
  title: 'Components/VenueCard',
  component: VenueCard,
  args: { venue: venues[0], headingLevel: 2, index: 0 },
  decorators: [(Story) => <div style={{ maxWidth: '24rem' }}><Story /></div>],
} satisfies Meta<typeof VenueCard>;

export default meta;
type Story = StoryObj<typeof meta>;

export const Default: Story = {};

/** Under a section heading (an h3 title). */
export const AsSubheading: Story = { args: { headingLevel: 3 } };

/** A venue with no photograph yet: the designed placeholder, never a broken image. */
export const WithoutPhotograph: Story = {
  args: { venue: venues.find((v) => v.image === null) ?? venues[0] },
};

/** Long copy must wrap inside the card. */
export const LongCopy: Story = {
  args: {
    venue: {
      ...venues[0],
      name: 'Antigo Armazém de Cortiça e Conservas do Poço do Bispo, Sala Grande',
      summary: `${venues[0].summary} ${venues[0].summary}`,
    },
  },
};
