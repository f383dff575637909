import sys, re
def variant(src, kind):
    s = src
    s = s.replace("struct StoreParams {\n  bits_t* y;\n  float alpha;\n};",
                  "struct StoreParams {\n  bits_t* y;\n  const bits_t* x;\n  float alpha;\n};")
    s = s.replace("__device__ __forceinline__ float store_alpha(",
                  "__device__ __forceinline__ const bits_t* load_base(const Params& p, int i) {\n  return c_store[(((int)threadIdx.x + i) * p.slot) & 3].x;\n}\n__device__ __forceinline__ float store_alpha(")
    s = s.replace("const StoreParams sp{static_cast<bits_t*>(buffers->out), p.alpha};",
                  "const StoreParams sp{static_cast<bits_t*>(buffers->out), static_cast<const bits_t*>(buffers->a), p.alpha};")
    g0 = s.index("void move_tile_guarded("); g1 = s.find("// A full tile", g0); g1 = g1 if g1 > 0 else s.index("// One block per tile", g0)
    g = s[g0:g1]
    old_store = """      if (ok) {
#pragma unroll
        for (int j = 0; j < kRN; ++j) e[j] = scale(e[j], store_alpha(p, i));
        store_vec(store_base(p, i) + y_plane + col * rows + row, e);
      }"""
    assert old_store in g, "store"
    if 'A' in kind:
        g = g.replace("      const bool ok = (row < rows && col < cols);\n" + old_store,
            """      bits_t* yb = store_base(p, i);
      float al = store_alpha(p, i);
      asm volatile("" : "+l"(yb), "+f"(al));  // the constant loads before the guard: every lane
      const bool ok = (row < rows && col < cols);
      if (ok) {
#pragma unroll
        for (int j = 0; j < kRN; ++j) e[j] = scale(e[j], al);
        store_vec(yb + y_plane + col * rows + row, e);
      }""")
        assert "yb + y_plane" in g
    if 'L' in kind:  # the lock's stores
        g = g.replace(old_store, """      if (ok) {
#pragma unroll
        for (int j = 0; j < kRN; ++j) e[j] = scale(e[j], p.alpha);
        store_vec(y + col * rows + row, e);
      }""")
        g = g.replace("  (void)y;  // the write phase stores through store_base\n", "")
        g = g.replace("    const idx_t y_plane = (idx_t)blockIdx.z * rows * cols;  // this transpose's output, from store_base\n", "")
    old_load = "load_vec(x + src + i * kReadRowGroups * cols_i, e);"
    assert old_load in g, "load"
    if 'B' in kind:
        g = g.replace("    if (col < cols) {\n", """    const idx_t x_plane = (idx_t)blockIdx.z * rows * cols;
    const bits_t* xb[kRM];
#pragma unroll
    for (int i = 0; i < kRM; ++i) {
      xb[i] = load_base(p, i);
      asm volatile("" : "+l"(xb[i]));  // the constant loads before the branch: every lane
    }
    if (col < cols) {
""", 1)
        g = g.replace(old_load, "load_vec(xb[i] + x_plane + src + i * kReadRowGroups * cols_i, e);")
    if 'C' in kind:  # loads' constant reads inside the branch
        g = g.replace("    if (col < cols) {\n", "    const idx_t x_plane = (idx_t)blockIdx.z * rows * cols;\n    if (col < cols) {\n", 1)
        g = g.replace(old_load, "load_vec(load_base(p, i) + x_plane + src + i * kReadRowGroups * cols_i, e);")
    if 'B' in kind or 'C' in kind:
        g = g.replace("  const int t = (int)threadIdx.x;\n", "  const int t = (int)threadIdx.x;\n  (void)x;  // the read phase loads through load_base\n", 1)
    return s[:g0] + g + s[g1:]
for dp in ("dp1", "dp4"):
    src = open(f".xfer/bd/{dp}_at_store.cu").read()
    for kind in ("A", "AB", "LB", "LC", "AC"):
        open(f".xfer/bd/{dp}_v{kind}.cu", "w").write(variant(src, kind))
