/**
 * Runtime schema of the research JSON answers this service produces (the upstream does not
 * publish one), written with the contract's validators so tests and clients check them the same
 * way as every other response. `strict` objects: a renamed or extra field is an error.
 */
import {
	array,
	int,
	nullable,
	num,
	object,
	oneOf,
	optional,
	str,
	tuple,
	type Infer
} from '../../../lib/contract/validate';

const contractType = oneOf(['call', 'put', 'all'] as const);
const expiry = str;
const strict = { strict: true };

export const researchResultSchema = object(
	{
		ticker: str,
		metric: str,
		timestamp: int,
		spot: num,
		view: oneOf(['table', 'skew', 'term', 'surface', 'level'] as const),
		rows: optional(
			array(object({ expiry, dte: int, strike: num, type: contractType, value: num }, strict))
		),
		series: optional(
			array(
				object(
					{ expiry, dte: int, type: contractType, points: array(tuple([num, num] as const)) },
					strict
				)
			)
		),
		term: optional(array(object({ expiry, dte: int, type: contractType, value: num }, strict))),
		surface: optional(
			object(
				{
					strikes: array(num),
					expiries: array(str),
					dte: array(int),
					values: array(array(nullable(num)))
				},
				strict
			)
		),
		level: optional(
			object(
				{
					value: nullable(num),
					expiries: array(object({ expiry, dte: int, value: nullable(num) }, strict))
				},
				strict
			)
		)
	},
	strict
);

export type ResearchResultBody = Infer<typeof researchResultSchema>;
