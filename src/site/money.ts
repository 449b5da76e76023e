/**
 * Money in currency units, exactly, from integer micros (10^-6 of the unit):
 * 40,000,000 micros read "USD 40.00", 138,888 "USD 0.138888", never a
 * rounded float. At least two decimals, and as many more as the micros need.
 * Pure, locale-free.
 */

/** Integer micros as a decimal amount: "40.00", "0.138888", "-1.50", "9007199254.740991". */
export function unitsOf(micros: number | bigint | string): string {
  const value = typeof micros === 'bigint' ? micros : BigInt(micros);
  const sign = value < 0n ? '-' : '';
  const abs = value < 0n ? -value : value;
  const whole = abs / 1_000_000n;
  const fraction = (abs % 1_000_000n).toString().padStart(6, '0').replace(/0+$/, '').padEnd(2, '0');
  return `${sign}${whole}.${fraction}`;
}

/** An amount with its currency code first ("USD 0.14"); without a currency, the number alone. */
export function money(micros: number | bigint | string, currency: string | null): string {
  return currency ? `${currency} ${unitsOf(micros)}` : unitsOf(micros);
}

/** A plan's budget in one phrase: "USD 0.138888 per attempt, USD 40.00 in all". */
export function budgetText(budget: { currency: string; per_attempt_micros: number; aggregate_micros: number }): string {
  return `${money(budget.per_attempt_micros, budget.currency)} per attempt, ${money(budget.aggregate_micros, budget.currency)} in all`;
}
