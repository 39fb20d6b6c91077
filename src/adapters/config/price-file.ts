// Loads the model table (prices, context windows): the bundled config/pricing.json, or --pricing FILE.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { validatePriceTable, type PriceTable } from '../../core/cost/pricing.js';
import { UserError } from '../../core/user-error.js';

export const BUNDLED_PRICING = fileURLToPath(
  new URL('../../../config/pricing.json', import.meta.url),
);

export async function loadPriceTable(file: string = BUNDLED_PRICING): Promise<PriceTable> {
  const text = await readFile(file, 'utf8').catch(() => {
    throw new UserError(`cannot read price file ${file}`, 'usage');
  });
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new UserError(`price file ${file} is not valid JSON`, 'usage');
  }
  const table = validatePriceTable(value);
  if (typeof table === 'string') throw new UserError(`price file ${file}: ${table}`, 'usage');
  return table;
}
