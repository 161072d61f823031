/**
 * The upstream contract (GEXBot API v2) as types and runtime checks. Pure TypeScript without
 * Node-only APIs: the embedded service, the dashboard server and the browser all import it.
 */
export * from './tickers';
export * from './categories';
export * from './dates';
export * from './futures';
export * from './research';
export * from './keys';
export * from './subscriptionLevels';
export * from './access';
export * from './routes';
export * from './hubs';
export * from './feeds';
export * from './scaling';
export * from './orderflowFields';
export * from './validate';
export * from './schemas';
export * from './pubsub';
