/// <reference lib="webworker" />
/**
 * The /chain page's analysis worker (a module worker): parsing and the whole analysis of an
 * imported chain run here so a 12,000-contract file never blocks the page.
 */
import type { PageToChainWorker } from './chainMessages';
import { ChainWorkerCore } from './chainWorkerCore';

const scope = self as unknown as DedicatedWorkerGlobalScope;
const core = new ChainWorkerCore();

scope.onmessage = (ev: MessageEvent<PageToChainWorker>) => scope.postMessage(core.handle(ev.data));
