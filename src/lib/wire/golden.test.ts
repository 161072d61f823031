/**
 * Field numbers and wire types checked against an independent encoder: a hand-written
 * protobuf writer (varint, zigzag, length-delimited) fed with the field table of the upstream
 * contract, not with the .proto files. If a .proto number or type drifted from the contract,
 * the bytes would differ here. The zstd frames are made by the reference libzstd (wasm build)
 * and read by fzstd in the decoder.
 */
import { compress } from '@bokuweb/zstd-wasm';
import { beforeAll, describe, expect, it } from 'vitest';
import { documentedChain, sampleGreekProfile } from '../contract/fixtures.test-support';
import { decodeFrame } from './decode';
import { encodeInner, initWireEncoder } from './encode';

beforeAll(async () => {
	await initWireEncoder();
});

type Field = [number, 'varint' | 'sint' | 'string' | 'bytes' | 'message', unknown];

function varint(n: bigint): number[] {
	const out: number[] = [];
	let v = BigInt.asUintN(64, n);
	do {
		let b = Number(v & 0x7fn);
		v >>= 7n;
		if (v > 0n) b |= 0x80;
		out.push(b);
	} while (v > 0n);
	return out;
}

function zigzag(n: number): bigint {
	const b = BigInt(n);
	return b >= 0n ? b * 2n : -b * 2n - 1n;
}

function message(fields: Field[]): number[] {
	const out: number[] = [];
	for (const [num, kind, value] of fields) {
		if (kind === 'varint' || kind === 'sint') {
			out.push(...varint(BigInt(num << 3)));
			out.push(...varint(kind === 'sint' ? zigzag(value as number) : BigInt(value as number)));
		} else {
			const body =
				kind === 'string'
					? [...new TextEncoder().encode(value as string)]
					: kind === 'bytes'
						? [...(value as Uint8Array)]
						: message(value as Field[]);
			out.push(...varint(BigInt((num << 3) | 2)), ...varint(BigInt(body.length)), ...body);
		}
	}
	return out;
}

function anyFrame(typeUrl: string, inner: number[]): Uint8Array {
	const z = compress(Uint8Array.from(inner), 3);
	return Uint8Array.from(
		message([
			[1, 'string', typeUrl],
			[2, 'bytes', z]
		])
	);
}

// gex_profile.Gex per docs/UPSTREAM.md, values already scaled.
const gexFields: Field[] = [
	[1, 'varint', 1767277800],
	[2, 'string', 'ES_SPX'],
	[3, 'sint', 0],
	[4, 'sint', 23400],
	[5, 'varint', 713855],
	[6, 'varint', 711295],
	[7, 'varint', 713500],
	[8, 'varint', 720000],
	[9, 'varint', 710000],
	[10, 'varint', 690000],
	// field 11 (strikes) is inserted by the test, with packed priors
	[12, 'sint', 1712585519],
	[13, 'sint', 51521105],
	[14, 'sint', 118],
	[
		15,
		'message',
		[
			[
				1,
				'message',
				[
					[1, 'sint', 713500],
					[2, 'sint', 12500]
				]
			]
		]
	]
];

describe('golden wire layout', () => {
	it('Gex field numbers and types match the contract', () => {
		// Priors as a packed repeated sint32 (proto3 default): field 1, length-delimited.
		const priors = [-24055, -24315];
		const packed = priors.flatMap((p) => varint(zigzag(p)));
		const strike: Field[] = [
			[1, 'varint', 689000],
			[2, 'sint', -22801],
			[3, 'sint', -8690],
			[
				4,
				'bytes',
				Uint8Array.from([
					...varint(BigInt((1 << 3) | 2)),
					...varint(BigInt(packed.length)),
					...packed
				])
			]
		];
		const fields = [
			...gexFields.slice(0, 10),
			[11, 'message', strike] as Field,
			...gexFields.slice(10)
		];
		const frame = decodeFrame(anyFrame('type.googleapis.com/proto.gex', message(fields)));
		expect(frame.kind).toBe('gex');
		expect(frame.value).toEqual({
			...documentedChain(),
			strikes: [[6890, -228.01, -86.9, [-240.55, -243.15]]],
			max_priors: [[7135, 12.5]]
		});
	});

	it('our encoder writes the same bytes as the independent writer', () => {
		const inner = encodeInner('spot', {
			timestamp: 1767277800,
			ticker: 'SPX',
			spot: 7000.25,
			source_timestamp_ms: 1767277800123
		});
		expect([...inner]).toEqual(
			message([
				[1, 'varint', 1767277800],
				[2, 'string', 'SPX'],
				[3, 'varint', 700025],
				[4, 'varint', 1767277800123]
			])
		);
	});

	it('OptionProfile: put_cvolume and its priors are unscaled, fields 1-10', () => {
		// Fields 5 and 7.1 are packed repeated sint32: call priors x100 (1.5, -2), put priors as is.
		const packed = (values: number[]) => Uint8Array.from(values.flatMap((v) => varint(zigzag(v))));
		const contract: Field[] = [
			[1, 'varint', 700000],
			[2, 'varint', 125],
			[3, 'varint', 140],
			[4, 'sint', 150050],
			[5, 'bytes', packed([150, -200])],
			[6, 'sint', -300],
			[7, 'message', [[1, 'bytes', packed([4, -5])]]]
		];
		const inner = message([
			[1, 'varint', 99],
			[2, 'string', 'SPX'],
			[3, 'varint', 700050],
			[4, 'sint', 0],
			[5, 'sint', 100],
			[6, 'varint', 701000],
			[7, 'varint', 699000],
			[8, 'varint', 702000],
			[9, 'varint', 698000],
			[10, 'message', contract]
		]);
		const frame = decodeFrame(anyFrame('x/proto.greek', inner));
		expect(frame.value).toEqual({
			...sampleGreekProfile(),
			timestamp: 99,
			mini_contracts: [[7000, 0.125, 0.14, 1500.5, [1.5, -2], -300, [4, -5]]]
		});
	});

	it('Orderflow: fields 4-11 uint32, 12-37 sint32, both x100', () => {
		const fields: Field[] = [
			[1, 'varint', 7],
			[2, 'string', 'SPY'],
			[3, 'varint', 60012]
		];
		for (let n = 4; n <= 37; n++)
			fields.push(n <= 11 ? [n, 'varint', n * 100] : [n, 'sint', -n * 100]);
		const frame = decodeFrame(anyFrame('proto.orderflow', message(fields)));
		const v = frame.value as Record<string, number>;
		expect(v.spot).toBe(600.12);
		expect(v.z_mlgamma).toBe(4);
		expect(v.one_mput).toBe(11);
		expect(v.zcvr).toBe(-12);
		expect(v.agg_dex).toBe(-20);
		expect(v.net_dex).toBe(-26);
		expect(v.dexoflow).toBe(-32);
		expect(v.one_cvroflow).toBe(-37);
	});
});
