/**
 * The data time of a stream frame, read on the server without decoding the payload: every
 * message of the wire (Gex, OptionProfile, Orderflow, SpotPrice) has `int64 timestamp = 1` as its
 * first field, so after the zstd inflate only the first varint is read. Volume profiles are zstd
 * JSON; their `timestamp` member is read when present. Undefined when the frame has none (the
 * recorder then uses the ticker's last known time).
 */
import { inflate, unwrapAny } from '../../wire/decode';

function readVarint(b: Uint8Array, at: number): { value: number; next: number } | undefined {
	let value = 0;
	let mul = 1;
	for (let i = at; i < b.length && i < at + 10; i++) {
		value += (b[i] & 0x7f) * mul;
		if ((b[i] & 0x80) === 0) return { value, next: i + 1 };
		mul *= 128;
	}
	return undefined;
}

/** Unix seconds of the frame's calculation, or undefined. Never throws. */
export function frameTimestamp(any: Uint8Array): number | undefined {
	let inner: Uint8Array;
	try {
		inner = inflate(unwrapAny(any).value);
	} catch {
		return undefined;
	}
	let i = 0;
	while (i < inner.length && (inner[i] === 0x20 || inner[i] === 0x0a || inner[i] === 0x0d)) i++;
	if (inner[i] === 0x7b) {
		// Volume profile: JSON. Only its first kilobyte is searched (the stamp leads the object).
		const head = new TextDecoder().decode(inner.subarray(0, 1024));
		const m = /"timestamp"\s*:\s*(\d+(?:\.\d+)?)/.exec(head);
		return m ? Number(m[1]) : undefined;
	}
	// Field 1, wire type 0 (varint): tag byte 0x08.
	if (inner[0] !== 0x08) return undefined;
	const v = readVarint(inner, 1);
	return v && v.value > 0 ? v.value : undefined;
}
