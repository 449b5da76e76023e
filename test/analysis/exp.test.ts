/**
 * exp (src/analysis/exp.ts) is fdlibm's exp, the same on every engine: bit
 * patterns computed by Node 20's Math.exp (fdlibm in V8 11) for a fixed set
 * of arguments, the edge cases, and agreement with Node's Math.exp on a
 * sample (the reports made before it are unchanged). The browser side is
 * test/browser/rederive.browser.test.ts: Chromium re-derives the demo's
 * p-values to the last bit.
 */
import { describe, expect, it } from 'vitest';
import { exp } from '../../src/analysis/exp.ts';

const view = new DataView(new ArrayBuffer(8));
const bits = (x: number): string => {
  view.setFloat64(0, x);
  return view.getBigUint64(0).toString(16).padStart(16, '0');
};

/** [argument, the IEEE 754 bits of e^argument as fdlibm gives them]. */
const VECTORS: readonly (readonly [number, string])[] = [
  [-23.88224221765995, '3dc75901ddd1cda4'],
  [-11.97059154510498, '3eda8a31f522010d'],
  [-21.69167995452881, '3dfa177bdb32b1db'],
  [-39.483675956726074, '3c606ab005df75dd'],
  [-26.88741683959961, '3d8280ab322d3ce4'],
  [-21.16811752319336, '3e06059604e8bbeb'],
  [-34.79574203491211, '3ccbdd4ecf78dd88'],
  [-36.61306381225586, '3ca21b843eb1deba'],
  [-2.9823875427246094, '3fa9f1a46550a4c9'],
  [-39.894925355911255, '3c55c343a6587579'],
  [-8.385353088378906, '3f2de89fba004c41'],
  [-7.734185457229614, '3f3caddafefbdec1'],
  [-39.71040487289429, '3c5a2c3bf74d498d'],
  [-2.3613643646240234, '3fb8237ca6c8520a'],
  [-15.362578630447388, '3e8c9232b97204f4'],
  [-1.2101411819458008, '3fd314f9794f3ca9'],
  [-2.8797398507595062, '3facbf9c27c9d934'],
  [-26.947370171546936, '3d816d08e8efc931'],
  [-36.96053981781006, '3c9995b27bf42fa6'],
  [-32.383151054382324, '3d0370c0523b0cf0'],
  [-29.648947715759277, '3d42b556352d443f'],
  [-2.548518180847168, '3fb404bf9677ecec'],
  [-24.72474694252014, '3db41bc3956a62e3'],
  [-19.838342666625977, '3e24cfca283f2fa6'],
  [-8.155946731567383, '3f32cf7437431317'],
  [-35.69275975227356, '3cb6b9b27ffbf01c'],
  [-2.756524085998535, '3fb042550617fb0d'],
  [-32.109304666519165, '3d09907dd4b26e77'],
  [-5.853767395019531, '3f6780e025efc2ca'],
  [-1.0882198810577393, '3fd58e62bbc3af3a'],
  [-28.6595319211483, '3d5928d9a6bca950'],
  [-29.551515579223633, '3d449f761a09bc9f'],
  [-34.528512954711914, '3cd23342f239b41a'],
  [-32.70482063293457, '3cfc2fab486f91aa'],
  [-33.4340763092041, '3ceb2fc51ddff839'],
  [-29.700288772583008, '3d41c5a7110ab089'],
  [-1.447916030883789, '3fce166f22902d97'],
  [-13.56038212776184, '3eb5a733cbb86776'],
  [-6.010956764221191, '3f6415ac9923a51f'],
  [-26.354185342788696, '3d8f89538ce65898'],
  [-163.6913299560547, '312cb4fd2172bac7'],
  [-280.8235168457031, '269cfc8586afb441'],
  [406.2602996826172, '649143a8f37e2745'],
  [-261.95526123046875, '2850e4e0be1944df'],
  [524.2282867431641, '6f33b82fd18dc433'],
  [-419.21119689941406, '1a2274f4b5b6d281'],
  [-53.19209694862366, '3b2328f5a3c2f053'],
  [103.68378162384033, '4947fc3b8538e3ea'],
  [-118.833327293396, '3537958d575704a4'],
  [-282.32905864715576, '2679ba5df4bc974c'],
  [476.3725519180298, '6ae329f476ef8ac6'],
  [1, '4005bf0a8b145769'],
  [-1, '3fd78b56362cef38'],
  [0.5, '3ffa61298e1e069c'],
  [-0.3465735902799726, '3fe6a09e667f3bcd'],
  [1e-9, '3ff000000044b830'],
  [-708.39, '00101a5ff6ed496b'],
  [709.7, '7fed75ae7a50ee14'],
];

describe('exp', () => {
  it('gives fdlibm bit patterns', () => {
    for (const [x, expected] of VECTORS) expect(bits(exp(x)), String(x)).toBe(expected);
  });

  it('edge cases: NaN, infinities, overflow, underflow, tiny arguments, signed zero', () => {
    expect(exp(NaN)).toBeNaN();
    expect(exp(Infinity)).toBe(Infinity);
    expect(exp(-Infinity)).toBe(0);
    expect(exp(709.8)).toBe(Infinity);
    expect(exp(-745.2)).toBe(0);
    expect(exp(0)).toBe(1);
    expect(exp(-0)).toBe(1);
    expect(exp(1e-300)).toBe(1);
    expect(exp(-740)).toBeGreaterThan(0); // subnormal, not flushed
  });

  it('equals the Math.exp of the Node the suite runs on, over 200,000 arguments of the ranges the statistics use', () => {
    let seed = 12345;
    const next = (): number => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    let differ = 0;
    for (let i = 0; i < 200_000; i++) {
      const x = i % 2 === 0 ? -next() * 40 : (next() - 0.5) * 1400;
      if (!Object.is(exp(x), Math.exp(x))) differ++;
    }
    expect(differ).toBe(0);
  });
});
