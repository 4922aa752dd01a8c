// `kasi price archive <priceId>`: archives a price (services/prices/archive.ts), printing it as the
// API shows it (`active` false). Archiving an archived price prints it unchanged.
import { archivePrice } from '../services/prices/archive';
import { priceView } from '../views/price';
import { UsageError, type CommandInput, type CommandOutput } from './commands';
import { shown } from './text';

export const priceCommands: Record<string, (input: CommandInput) => Promise<CommandOutput>> = {
  async 'price archive'(input) {
    const [id, ...rest] = input.args;
    if (!id) throw new UsageError('missing <priceId>');
    if (rest.length) throw new UsageError(`unexpected arguments: ${rest.join(' ')}`);
    const price = priceView(await archivePrice(input.deps, id));
    return { json: price, text: `archived ${price.id} (${shown(price.product.name)}, ${price.unitAmountCents} cents a ${price.intervalCount === 1 ? '' : `${price.intervalCount}-`}${price.interval}): it starts no new subscriptions` };
  },
};
