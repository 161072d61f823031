/**
 * The one shape of a fallible answer that does not throw (parsers, validators, decoders): `ok`
 * with its named fields, or `ok: false` with an error (a message unless said otherwise). Every
 * layer may import it, so a caller narrows every parser's answer the same way.
 */
export type Failure<E = string> = { ok: false; error: E };
export type Outcome<S extends object, E = string> = ({ ok: true } & S) | Failure<E>;
