/**
 * The one error type frame decoding may throw: a corrupt, truncated or unknown frame becomes a
 * WireDecodeError naming the stage that failed, never a crash of the worker or the relay.
 */

export type WireDecodeStage = 'base64' | 'envelope' | 'type' | 'zstd' | 'message' | 'json';

export class WireDecodeError extends Error {
	constructor(
		readonly stage: WireDecodeStage,
		message: string,
		options?: { cause?: unknown }
	) {
		super(`wire ${stage}: ${message}`, options);
		this.name = 'WireDecodeError';
	}
}

export function isWireDecodeError(e: unknown): e is WireDecodeError {
	return e instanceof WireDecodeError;
}

/** Message of an unknown thrown value, for wrapping third-party decoder errors. */
export function describeError(e: unknown): string {
	return e instanceof Error ? e.message : String(e);
}
