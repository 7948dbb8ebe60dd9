// The defects both decode cases plant at every test shape (their references take each as an option of the
// same name): a layer skipped, the K/V row one early, the attention range one row short at either end, the
// LM head one row off.

/** The planted defects every decode step must fail, at a shape of `layers` layers and `pos` cached keys. */
export function everyDecodeDefect({ layers, pos }: { layers: number; pos: number }) {
  return [
    { skipLayer: 0 },
    { skipLayer: layers - 1 },
    { kvRow: pos - 1 },
    { keyFirst: 1 },
    { keyLast: pos - 1 },
    { lmHeadShift: 1 },
  ];
}
