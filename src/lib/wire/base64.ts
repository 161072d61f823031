/**
 * Base64 without Node's Buffer, so the worker and the browser share it. Group frames arrive as
 * base64 text in the Web PubSub JSON envelope.
 */

import { WireDecodeError } from './errors';

const CHUNK = 0x8000;

export function bytesToBase64(bytes: Uint8Array): string {
	let bin = '';
	for (let i = 0; i < bytes.length; i += CHUNK) {
		bin += String.fromCharCode.apply(null, bytes.subarray(i, i + CHUNK) as unknown as number[]);
	}
	return btoa(bin);
}

/** Decodes standard base64; anything else is a WireDecodeError('base64'). */
export function base64ToBytes(text: string): Uint8Array {
	if (typeof text !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 === 1) {
		throw new WireDecodeError('base64', 'data is not base64 text');
	}
	let bin: string;
	try {
		bin = atob(text);
	} catch (e) {
		throw new WireDecodeError('base64', 'data is not base64 text', { cause: e });
	}
	const out = new Uint8Array(bin.length);
	for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
	return out;
}
