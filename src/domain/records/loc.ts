// LOC (RFC 1876): where a host is, on the WGS 84 ellipsoid, and how precisely that is known.
import { z } from 'zod';
import { encodeRdata, rdataToData } from '../../../nameserver/wire/rdata.js';
import { MAX_LOC_ALTITUDE_M, MAX_LOC_SIZE_M, MIN_LOC_ALTITUDE_M } from '../../../nameserver/wire/types/loc.js';
import type { RecordTypePolicy } from './rule.js';

export type LocData = { latitude: number; longitude: number; altitude: number; size: number; horizontal_precision: number; vertical_precision: number };

function numberField(field: string, min: number, max: number, unit: string) {
  const error = `"${field}" must be a number of ${unit} from ${min} to ${max}.`;
  return z.number({ error }).min(min, { error }).max(max, { error });
}

const size = (field: string) => numberField(field, 0, MAX_LOC_SIZE_M, 'metres');

export const locRule: RecordTypePolicy = {
  type: 'LOC',
  data: z
    .strictObject({
      latitude: numberField('latitude', -90, 90, 'degrees (north positive)'),
      longitude: numberField('longitude', -180, 180, 'degrees (east positive)'),
      altitude: numberField('altitude', MIN_LOC_ALTITUDE_M, MAX_LOC_ALTITUDE_M, 'metres'),
      size: size('size'),
      horizontal_precision: size('horizontal_precision'),
      vertical_precision: size('vertical_precision'),
    })
    // Stored as served: angles to a thousandth of an arcsecond, the altitude to a centimetre, the
    // sizes to one significant digit (RFC 1876 §2), as BIND reads them from a zone file.
    .transform((d) => rdataToData('LOC', encodeRdata('LOC', d)) ?? d),
  ownerProblem: () => null,
  zoneKinds: ['forward'],
};
