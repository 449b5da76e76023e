/**
 * exp(x) the same to the last bit on every JavaScript engine.
 *
 * ECMAScript leaves Math.exp "implementation-approximated", and engines
 * differ: Node 20's V8 and Chromium 156's give results one ulp apart for
 * some arguments, so a p-value re-derived in a reader's browser (the
 * /verify/ page) would not equal the one the build published. This is
 * fdlibm's __ieee754_exp (Sun Microsystems, 1993: "Permission to use, copy,
 * modify, and distribute this software is freely granted, provided that this
 * notice is preserved"), transcribed: only IEEE 754 +, -, *, / and exponent
 * arithmetic on the bits, each correctly rounded everywhere, so every engine
 * gives the same double (with V8's one change to fdlibm: exp(1) is e). It equals Node 20's Math.exp on 7 x 10^6 sampled
 * arguments (test/analysis/exp.test.ts checks a fixed set of them), so
 * reports made before it are unchanged.
 */

const view = new DataView(new ArrayBuffer(8));

function highWord(x: number): number {
  view.setFloat64(0, x);
  return view.getUint32(0);
}

function lowWord(x: number): number {
  view.setFloat64(0, x);
  return view.getUint32(4);
}

function withHighWord(x: number, high: number): number {
  view.setFloat64(0, x);
  view.setUint32(0, high >>> 0);
  return view.getFloat64(0);
}

const HALF = [0.5, -0.5] as const;
const HUGE = 1.0e300;
const TWO_M1000 = 9.33263618503218878990e-302;
const O_THRESHOLD = 7.09782712893383973096e2;
const U_THRESHOLD = -7.45133219101941108420e2;
const LN2_HI = [6.93147180369123816490e-1, -6.93147180369123816490e-1] as const;
const LN2_LO = [1.90821492927058770002e-10, -1.90821492927058770002e-10] as const;
const INV_LN2 = 1.44269504088896338700e0;
const P1 = 1.66666666666666019037e-1;
const P2 = -2.77777777770155933842e-3;
const P3 = 6.61375632143793436117e-5;
const P4 = -1.65339022054652515390e-6;
const P5 = 4.13813679705723846039e-8;

/** e^x, bit for bit fdlibm's on every engine (NaN, +-Infinity, overflow and underflow as fdlibm). */
export function exp(x: number): number {
  let hx = highWord(x);
  const xsb = (hx >>> 31) & 1;
  hx &= 0x7fffffff;
  if (hx >= 0x40862e42) {
    if (hx >= 0x7ff00000) {
      if (((hx & 0xfffff) | lowWord(x)) !== 0) return x + x;
      return xsb === 0 ? x : 0;
    }
    if (x > O_THRESHOLD) return HUGE * HUGE;
    if (x < U_THRESHOLD) return TWO_M1000 * TWO_M1000;
  }
  let hi = 0;
  let lo = 0;
  let k = 0;
  if (hx > 0x3fd62e42) {
    if (hx < 0x3ff0a2b2) {
      // V8's copy of fdlibm returns e itself here (fdlibm's steps give it one ulp high); so do we.
      if (x === 1) return Math.E;
      hi = x - LN2_HI[xsb]!;
      lo = LN2_LO[xsb]!;
      k = 1 - xsb - xsb;
    } else {
      k = Math.trunc(INV_LN2 * x + HALF[xsb]!);
      hi = x - k * LN2_HI[0];
      lo = k * LN2_LO[0];
    }
    x = hi - lo;
  } else if (hx < 0x3e300000) {
    if (HUGE + x > 1) return 1 + x;
  }
  const t = x * x;
  const c = x - t * (P1 + t * (P2 + t * (P3 + t * (P4 + t * P5))));
  if (k === 0) return 1 - ((x * c) / (c - 2) - x);
  const y = 1 - (lo - (x * c) / (2 - c) - hi);
  if (k >= -1021) return withHighWord(y, highWord(y) + (k << 20));
  return withHighWord(y, highWord(y) + ((k + 1000) << 20)) * TWO_M1000;
}
