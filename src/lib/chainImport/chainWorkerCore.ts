/**
 * The chain worker's logic as a plain object (unit tests drive it without a Worker): keeps the
 * last parsed file so a change of conventions only re-prices and re-analyses, and turns every
 * failure into an error reply naming the line, never a half model.
 */
import { ChainParseError } from '../analytics';
import { analyzeParsed, parseFile, type ParsedFile } from './analysis';
import type { ChainWorkerToPage, PageToChainWorker } from './chainMessages';

export class ChainWorkerCore {
	private file: ParsedFile | undefined;

	constructor(private readonly now: () => number = () => performance.now()) {}

	handle(message: PageToChainWorker): ChainWorkerToPage {
		const t0 = this.now();
		try {
			if (message.type === 'load') {
				// A file that fails to parse replaces nothing: the chain shown before stays.
				this.file = parseFile(message.text);
			} else if (!this.file) {
				return { type: 'error', id: message.id, message: 'no chain loaded', line: null };
			}
			const t1 = this.now();
			const model = analyzeParsed(this.file, message.conventions);
			return {
				type: 'model',
				id: message.id,
				model,
				parseMs: message.type === 'load' ? t1 - t0 : 0,
				analysisMs: this.now() - t1
			};
		} catch (e) {
			if (e instanceof ChainParseError)
				return { type: 'error', id: message.id, message: e.message, line: e.line ?? null };
			return {
				type: 'error',
				id: message.id,
				message: `analysis failed: ${(e as Error).message}`,
				line: null
			};
		}
	}
}
