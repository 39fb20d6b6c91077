// Loads the model table (prices, context windows): the bundled config/pricing.json, or --pricing FILE.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { validatePriceTable, type PriceTable } from '../core/pricing.js';
import { CliError } from './cli-error.js';

export const BUNDLED_PRICING = fileURLToPath(new URL('../../config/pricing.json', import.meta.url));

export async function loadPriceTable(file: string = BUNDLED_PRICING): Promise<PriceTable> {
  const text = await readFile(file, 'utf8').catch(() => {
    throw new CliError(`cannot read price file ${file}`, 2);
  });
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new CliError(`price file ${file} is not valid JSON`, 2);
  }
  const table = validatePriceTable(value);
  if (typeof table === 'string') throw new CliError(`price file ${file}: ${table}`, 2);
  return table;
}
