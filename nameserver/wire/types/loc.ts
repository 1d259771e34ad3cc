// LOC (RFC 1876 §2): version 0, size and horizontal/vertical precision (each a digit times a power
// of ten, in centimetres), latitude and longitude (thousandths of an arcsecond from 2^31), altitude
// (centimetres above 100,000 m below the WGS 84 ellipsoid). Data: latitude and longitude in decimal
// degrees (north and east positive), altitude and the three sizes in metres. The master-file form
// (§3) is its own: degrees, minutes, seconds and a hemisphere, then metres, with defaults.
import { Malformed, type RdataBuilder, type RdataReader, type RecordCodec } from '../rdataCodec.js';

const EQUATOR = 2 ** 31;
const ARCSEC_THOUSANDTHS_PER_DEGREE = 3_600_000;
const ALTITUDE_ZERO_CM = 10_000_000;
/** RFC 1876 §3: the largest size a precision octet holds, 9·10^9 cm. */
export const MAX_LOC_SIZE_M = 90_000_000;
export const MIN_LOC_ALTITUDE_M = -100_000;
export const MAX_LOC_ALTITUDE_M = 42_849_672.95;

/** Centimetres as RFC 1876's mantissa/exponent octet, cut down to one significant digit as BIND does. */
function precisionOctet(cm: number): number {
  let exponent = 0;
  while (exponent < 9 && cm >= 10 ** (exponent + 1)) exponent++;
  return (Math.floor(cm / 10 ** exponent) << 4) | exponent;
}

function precisionCm(octet: number): number {
  const mantissa = octet >> 4;
  const exponent = octet & 0x0f;
  if (mantissa > 9 || exponent > 9) throw new Malformed();
  return mantissa * 10 ** exponent;
}

function metres(b: RdataBuilder, field: string, min: number, max: number): number {
  const v = b.value(field);
  if (typeof v !== 'number' || !Number.isFinite(v) || v < min || v > max) b.fail(field, `expected metres from ${min} to ${max}, got ${String(v)}`);
  return v;
}

function degrees(b: RdataBuilder, field: string, max: number): void {
  const v = b.value(field);
  if (typeof v !== 'number' || !Number.isFinite(v) || Math.abs(v) > max) b.fail(field, `expected degrees from -${max} to ${max}, got ${String(v)}`);
  b.pos = b.scratch.writeUInt32BE(EQUATOR + Math.round(v * ARCSEC_THOUSANDTHS_PER_DEGREE), b.pos);
}

function readDegrees(r: RdataReader, max: number): number {
  const thousandths = r.u32() - EQUATOR;
  if (Math.abs(thousandths) > max * ARCSEC_THOUSANDTHS_PER_DEGREE) throw new Malformed();
  return thousandths;
}

const SIZES = ['size', 'horizontal_precision', 'vertical_precision'] as const;

function readFixed(r: RdataReader): { sizes: number[]; latitude: number; longitude: number; altitudeCm: number } {
  if (r.u8() !== 0) throw new Malformed(); // RFC 1876 §2: only version 0 is defined
  const sizes = SIZES.map(() => precisionCm(r.u8()));
  const latitude = readDegrees(r, 90);
  const longitude = readDegrees(r, 180);
  return { sizes, latitude, longitude, altitudeCm: r.u32() - ALTITUDE_ZERO_CM };
}

const pad = (n: number, width: number) => String(n).padStart(width, '0');

/** BIND's and Knot's form: "52 22 23.000 N". */
function dms(thousandths: number, positive: string, negative: string): string {
  const abs = Math.abs(thousandths);
  const d = Math.floor(abs / ARCSEC_THOUSANDTHS_PER_DEGREE);
  const m = Math.floor((abs % ARCSEC_THOUSANDTHS_PER_DEGREE) / 60_000);
  const s = abs % 60_000;
  return `${d} ${m} ${Math.floor(s / 1000)}.${pad(s % 1000, 3)} ${thousandths < 0 ? negative : positive}`;
}

const centimetres = (cm: number) => `${cm < 0 ? '-' : ''}${Math.floor(Math.abs(cm) / 100)}.${pad(Math.abs(cm) % 100, 2)}m`;
/** Sizes of a metre or more without decimals ("10000m"), smaller ones with two ("0.50m"), as BIND prints them. */
const sizeText = (cm: number) => (cm >= 100 ? `${cm / 100}m` : centimetres(cm));

export const loc: RecordCodec = {
  type: 'LOC',
  fields: [
    ['latitude', 'decimal'],
    ['longitude', 'decimal'],
    ['altitude', 'decimal'],
    ['size', 'decimal'],
    ['horizontal_precision', 'decimal'],
    ['vertical_precision', 'decimal'],
  ],
  encode: (b) => {
    b.octet(0);
    for (const field of SIZES) b.octet(precisionOctet(Math.round(metres(b, field, 0, MAX_LOC_SIZE_M) * 100)));
    degrees(b, 'latitude', 90);
    degrees(b, 'longitude', 180);
    const altitude = metres(b, 'altitude', MIN_LOC_ALTITUDE_M, MAX_LOC_ALTITUDE_M);
    b.pos = b.scratch.writeUInt32BE(ALTITUDE_ZERO_CM + Math.round(altitude * 100), b.pos);
  },
  decode: (r) => {
    const { sizes, latitude, longitude, altitudeCm } = readFixed(r);
    return {
      latitude: latitude / ARCSEC_THOUSANDTHS_PER_DEGREE,
      longitude: longitude / ARCSEC_THOUSANDTHS_PER_DEGREE,
      altitude: altitudeCm / 100,
      size: sizes[0]! / 100,
      horizontal_precision: sizes[1]! / 100,
      vertical_precision: sizes[2]! / 100,
    };
  },
  format: (r) => {
    const { sizes, latitude, longitude, altitudeCm } = readFixed(r);
    return [dms(latitude, 'N', 'S'), dms(longitude, 'E', 'W'), centimetres(altitudeCm), ...sizes.map(sizeText)].join(' ');
  },
  readPresentation: readLocPresentation,
};

const INTEGER = /^[0-9]+$/;
const SECONDS = /^[0-9]+(?:\.[0-9]{1,3})?$/;
const METRES = /^(-?[0-9]+(?:\.[0-9]{1,2})?)m?$/;

/** One of "d [m [s]] H" from `tokens` at `i`: thousandths of an arcsecond (signed) and the next index. */
function readAngle(tokens: readonly string[], i: number, max: number, hemispheres: string): { value: number; next: number } | string {
  const parts: string[] = [];
  while (i < tokens.length && parts.length < 3 && !hemispheres.includes(tokens[i]!.toUpperCase())) parts.push(tokens[i++]!);
  const hemisphere = tokens[i]?.toUpperCase();
  if (!hemisphere || !hemispheres.includes(hemisphere) || parts.length === 0) {
    return `expected degrees, optional minutes and seconds, then ${hemispheres[0]} or ${hemispheres[1]}`;
  }
  const [d, m = '0', s = '0'] = parts;
  if (!INTEGER.test(d!) || !INTEGER.test(m) || !SECONDS.test(s)) return `"${parts.join(' ')}" is not degrees, minutes and seconds`;
  const thousandths = Number(d) * ARCSEC_THOUSANDTHS_PER_DEGREE + Number(m) * 60_000 + Math.round(Number(s) * 1000);
  if (Number(m) > 59 || Number(s) >= 60 || thousandths > max * ARCSEC_THOUSANDTHS_PER_DEGREE)
    return `"${parts.join(' ')} ${hemisphere}" is beyond ${max} degrees`;
  return { value: hemisphere === hemispheres[1] ? -thousandths : thousandths, next: i + 1 };
}

/** RFC 1876 §3: the master-file form as LOC data, or what is wrong with it. */
function readLocPresentation(tokens: readonly string[]): Record<string, unknown> | string {
  const latitude = readAngle(tokens, 0, 90, 'NS');
  if (typeof latitude === 'string') return `latitude: ${latitude}`;
  const longitude = readAngle(tokens, latitude.next, 180, 'EW');
  if (typeof longitude === 'string') return `longitude: ${longitude}`;
  const rest = tokens.slice(longitude.next);
  if (rest.length < 1 || rest.length > 4) return 'expected the altitude, then optionally size, horizontal and vertical precision, in metres';
  // RFC 1876 §3 defaults: size 1 m, horizontal precision 10,000 m, vertical precision 10 m.
  const values = [rest[0]!, rest[1] ?? '1', rest[2] ?? '10000', rest[3] ?? '10'].map((t) => METRES.exec(t)?.[1]);
  const names = ['altitude', 'size', 'horizontal_precision', 'vertical_precision'];
  const bad = values.findIndex((v, k) => v === undefined || (k > 0 && v.startsWith('-')));
  if (bad >= 0) return `${names[bad]}: "${rest[bad]}" is not ${bad === 0 ? '' : 'a non-negative '}number of metres (at most two decimals, "m" optional)`;
  const [altitude, size, horizontal, vertical] = values.map(Number) as [number, number, number, number];
  return {
    latitude: latitude.value / ARCSEC_THOUSANDTHS_PER_DEGREE,
    longitude: longitude.value / ARCSEC_THOUSANDTHS_PER_DEGREE,
    altitude,
    size,
    horizontal_precision: horizontal,
    vertical_precision: vertical,
  };
}
