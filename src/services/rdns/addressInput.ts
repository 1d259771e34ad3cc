// Addresses and blocks as requests give them: parsed by the domain (src/domain/ip/address.ts), a
// bad one answered 422 validation_failed at the field it came from, with the parser's code
// (invalid_ip, ipv4_mapped_address, invalid_cidr, not_network_address).
import { type Address, AddressError, type Block, parseAddress, parseBlock, parseBlockFromPath } from '../../domain/ip/address.js';
import { validationFailed } from '../../domain/errors.js';

type Where = 'body' | 'path' | 'query';

function fromInput<T>(parse: () => T, pointer: string, where: Where, text: string): T {
  try {
    return parse();
  } catch (e) {
    // A stray '%' in a path segment (the router decoded it once already) is a bad block like any other.
    const error = e instanceof URIError ? new AddressError('invalid_cidr', `"${text}" is not a CIDR block in URL form (192.0.2.0-24).`) : e;
    if (!(error instanceof AddressError)) throw e;
    throw validationFailed([{ ...(where === 'body' ? {} : { in: where }), pointer, code: error.code, detail: error.message }]);
  }
}

export const addressInput = (text: string, pointer: string, where: Where = 'body'): Address => fromInput(() => parseAddress(text), pointer, where, text);
export const blockInput = (text: string, pointer: string, where: Where = 'body'): Block => fromInput(() => parseBlock(text), pointer, where, text);
/** A block named in a path segment: `192.0.2.0-24`, `%2F` accepted. */
export const blockInPath = (segment: string, pointer: string): Block => fromInput(() => parseBlockFromPath(segment), pointer, 'path', segment);
