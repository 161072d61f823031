/**
 * gexdeck analytics engine: pure TypeScript, no I/O; runs in Node, the browser and workers.
 * Import from here (relative path `../lib/analytics` or `$lib/analytics`).
 */
export * from './normal';
export * from './bsm';
export * from './chain';
export * from './greeks';
export * from './exposures';
export { gammaTerms, type GammaTerms } from './gammaTerms';
export { brentRoot } from './brent';
export { jsonErrorOffset } from './jsonPosition';
export * from './zeroGamma';
export { GammaKernel, nearestZeroGamma, type NearestRoots, type WarmStart } from './gammaKernel';
export * from './iv';
export * from './keyStrikes';
export * from './surface';
export * from './classify';
export * from './parse';
export * from './report';
export * from './syntheticChain';
export * from './parseCboe';
export * from './quoteChain';
export * from './chainFile';
export { isThirdFriday, nyWallTimeMs, weekdayCount } from './nyDates';
