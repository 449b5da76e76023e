export * from './common.ts';
export * from './manifest.ts';
export * from './plan.ts';
export * from './ledger.ts';
export * from './attempt.ts';
export * from './grades.ts';
export * from './grant.ts';
export * from './timestamp.ts';
