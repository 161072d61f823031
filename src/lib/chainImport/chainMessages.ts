/**
 * Messages between the /chain page and its analysis worker. Every request carries an `id`; the
 * reply repeats it, so the page keeps only the answer to its latest request.
 */
import type { ChainConventions } from '../analytics';
import type { ChainModel } from './analysis';

export type PageToChainWorker =
	/** Parse `text` (kept for later requests) and analyse it under `conventions`. */
	| { type: 'load'; id: number; text: string; conventions: ChainConventions }
	/** Analyse the chain loaded last under new conventions. */
	| { type: 'analyze'; id: number; conventions: ChainConventions };

export type ChainWorkerToPage =
	| {
			type: 'model';
			id: number;
			model: ChainModel;
			/** Worker time: parse (0 when the kept chain was reused) and analysis, ms. */
			parseMs: number;
			analysisMs: number;
	  }
	| { type: 'error'; id: number; message: string; line: number | null };
