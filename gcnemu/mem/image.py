"""MIMG: image load, store, atomics, resource info and sampling on linear images: see
image_instruction and image_sample.
"""
from __future__ import annotations

import numpy as np

from ..exec.jit import njit
from ..exec.layout import (C_K, C_LIT, ERR_FORMAT, ERR_RESOURCE, ERR_TILED, K_ATOMIC,
                           K_LOAD_FORMAT, K_RESINFO, K_SAMPLE, K_STORE_FORMAT, SF_B, SF_C, SF_CL,
                           SF_D, SF_GATHER, SF_L, SF_LZ, SF_O, U64, WS_VBASE, WS_VMEM)
from ..exec.state import fail, get_exec, record_fault, sgpr_ok, vgpr_ok
from ..sem.fp import as_f32, f32_bits
from .access import lane_on, lane_value, set_lane_value, vreg, vset
from .atomics import ATOMIC_CMPSWAP, ATOMIC_FCMPSWAP, mem_atomic
from .descriptors import descriptor_words
from .formats import (F32_ONE, FMT_BYTES, FMT_NC, NF_SINT, NF_UINT, component_layout, dst_select,
                      fmt_one, fmt_valid, load_component, rne_f64, store_component)
from .subops import counted_and_runs, raw_fields, subop_fields


# --- MIMG -----------------------------------------------------------------------------------
IMG_1D, IMG_2D, IMG_3D, IMG_1D_ARRAY, IMG_2D_ARRAY = 8, 9, 10, 12, 13
LINEAR_TILING_INDEX = 8


@njit
def _img_level(t_type, pitch, width, height, depth, bpe, level):
    """Linear mip chain (gcnemu's layout): level l of a W x H x D image is
    max(1, P>>l) x max(1, H>>l) x max(1, D>>l) texels (arrays keep all D slices, 1D images
    have H = 1), rows of max(1, pitch>>l) texels, levels one after another from level 0.
    Returns (byte offset of the level, row pitch, width, height, depth/slices)."""
    off = np.int64(0)
    is_arr = t_type == IMG_1D_ARRAY or t_type == IMG_2D_ARRAY
    h0 = 1 if (t_type == IMG_1D or t_type == IMG_1D_ARRAY) else height
    d0 = depth if (is_arr or t_type == IMG_3D) else 1
    for l in range(level + 1):
        p = max(1, pitch >> l)
        wl = max(1, width >> l)
        hl = max(1, h0 >> l)
        dl = d0 if is_arr else max(1, d0 >> l)
        if l == level:
            return off, p, wl, hl, dl
        off += np.int64(p) * hl * dl * bpe
    return off, 1, 1, 1, 1


@njit
def tsharp_fields(sregs, w, s, r128):
    """T# fields (memory.decode_tsharp's bit layout) from SGPRs s..s+7 (s..s+3 with r128)."""
    w0, w1, w2, w3 = descriptor_words(sregs, w, s)
    base = (w0 | ((w1 & U64(0xFF)) << U64(32))) << U64(8)
    dfmt = np.int64((w1 >> U64(20)) & U64(0x3F))
    nfmt = np.int64((w1 >> U64(26)) & U64(0xF))
    width = np.int64(w2 & U64(0x3FFF)) + 1
    height = np.int64((w2 >> U64(14)) & U64(0x3FFF)) + 1
    dsel = np.int64(w3 & U64(0xFFF))
    base_level = np.int64((w3 >> U64(12)) & U64(0xF))
    last_level = np.int64((w3 >> U64(16)) & U64(0xF))
    tiling = np.int64((w3 >> U64(20)) & U64(0x1F))
    t_type = np.int64((w3 >> U64(28)) & U64(0xF))
    depth = 1
    pitch = width
    base_array = 0
    last_array = 0
    if not r128:
        w4 = U64(sregs[w, s + 4])
        w5 = U64(sregs[w, s + 5])
        depth = np.int64(w4 & U64(0x1FFF)) + 1
        pitch = np.int64((w4 >> U64(13)) & U64(0x3FFF)) + 1
        base_array = np.int64(w5 & U64(0x1FFF))
        last_array = np.int64((w5 >> U64(13)) & U64(0x1FFF))
    return (base, dfmt, nfmt, width, height, dsel, base_level, last_level, tiling, t_type,
            depth, pitch, base_array, last_array)


@njit(inline="always")
def image_geometry(t_type, base_level, last_level, base_array, last_array):
    """What a T# of a supported type (IMG_*) addresses: (array?, coordinates, spatial
    coordinates, mip levels from BASE_LEVEL, slices)."""
    is_arr = t_type == IMG_1D_ARRAY or t_type == IMG_2D_ARRAY
    ncoord = 1 if t_type == IMG_1D else (3 if (t_type == IMG_3D or t_type == IMG_2D_ARRAY) else 2)
    nsp = ncoord - 1 if is_arr else ncoord      # spatial coordinates
    nlevels = max(last_level - base_level + 1, 1)
    nslices = last_array - base_array + 1 if is_arr else 1
    if nslices < 1:
        nslices = 1
    return is_arr, ncoord, nsp, nlevels, nslices


@njit(inline="always")
def texel_address(t_type, base, pitch, width, height, depth, bpe, base_level, nlevels,
                  base_array, nslices, is_arr, x, y, z, mip):
    """(byte address, in range) of texel (x, y, z) of mip level ``mip`` (relative to the T#'s
    BASE_LEVEL) for image_load/store/atomic's unsigned VADDR coordinates (a 1D array's slice
    comes as y); out of range (a texel, slice or level beyond the image) the access reads 0
    or is dropped."""
    if t_type == IMG_1D_ARRAY:
        z = y
        y = 0
    inr = mip < nlevels
    addr = np.int64(0)
    if inr:
        loff, p, wl, hl, dl = _img_level(t_type, pitch, width, height, depth, bpe, base_level + mip)
        zz = z
        if is_arr:
            inr = z < nslices
            zz = base_array + z
        else:
            inr = z < dl
        inr = inr and x < wl and y < hl
        addr = np.int64(base) + loff + ((zz * hl + y) * p + x) * bpe
    return addr, inr


@njit
def _img_fetch(mem_data, mem_mapped, mem_base, addr, dfmt, nfmt, vals):
    """Read one texel at addr and decode its components into vals[4] (missing: 0,0,0,1).
    Returns False when a byte was unmapped (the texel then reads as zeros)."""
    nc = FMT_NC[dfmt]
    okall = True
    for k in range(4):
        vals[k] = U64(0)
    for k in range(nc):
        bits, coff, csize, shift = component_layout(dfmt, k)
        vals[k], ok = load_component(mem_data, mem_mapped, mem_base, addr + coff, bits, csize,
                                     shift, nfmt)
        okall = okall and ok
    if nc < 4:
        vals[3] = fmt_one(nfmt)
    return okall


@njit
def _wrap_coord(i, n, mode):
    """Texel index i under an S# clamp mode; -1 means 'border'."""
    if mode == 0:      # wrap
        r = i % n
        return r + n if r < 0 else r
    if mode == 1:      # mirror
        p = i % (2 * n)
        if p < 0:
            p += 2 * n
        return p if p < n else 2 * n - 1 - p
    if mode == 3 or mode == 5 or mode == 7:   # mirror once
        if i < 0:
            i = -i - 1
        if mode == 3:
            return min(i, n - 1)
        return i if i < n else -1
    if mode == 2:      # clamp to last texel
        return min(max(i, 0), n - 1)
    return i if 0 <= i < n else -1   # clamp (half) border


@njit
def image_instruction(ins, w, sregs, ws, vgpr, mem_data, mem_mapped, mem_base, faults, scratch):
    """MIMG on linear images (T# tiling_index 8) of type 1D, 2D, 3D, 1D array, 2D array.

    * VADDR: x [, y] [, z | slice] [, mip] as uint32 for load/store/atomic (image_*_mip add
      the mip level, relative to the T# BASE_LEVEL); floats for image_sample, with the bias
      first for _b and the LOD last for _l. Out-of-range texels, slices or levels read 0 and
      drop writes/atomics.
    * Data: VDATA holds the DMASK-enabled components consecutively. Loads and samples apply
      the T# DST_SEL; stores write only enabled components. Atomics operate on the raw 32-bit
      (DMASK 1 component, cmpswap 2) or 64-bit (2, cmpswap 4; data format 32_32) texel, with
      glc returning the old value (every gfx7 op incl. fcmpswap/fmin/fmax, IEEE minNum/
      maxNum as memory.mem_atomic).
    * image_get_resinfo: VADDR = mip level; returns (width, height, depth, levels) of the
      level (1D arrays give the slice count as height, 2D arrays as depth), 0 beyond the last.
    * image_sample*, image_gather4*, image_get_lod: see image_sample.
    * Not covered: tiled layouts (ERR_TILED), cube/MSAA/buffer images (ERR_RESOURCE),
      image_load_pck*/store_pck* (unimplemented), the image-only data formats (5_6_5 ...
      BC*, ERR_FORMAT), tfe/lwe on samples.
    """
    kind, variant, _, get_lod, aop, _, has_mip, _ = subop_fields(ins[C_K])
    dmask, unorm, glc, _, vaddr, vdata, srsrc, ssamp = raw_fields(ins)
    srsrc *= 4
    ssamp *= 4
    tfe = ins[C_LIT] & 0xFF
    r128 = (ins[C_LIT] >> 16) & 0xFF
    ex = get_exec(sregs, w)
    if not counted_and_runs(ins, ws, w, kind, WS_VMEM):
        return
    if not sgpr_ok(ws, w, srsrc, 4 if r128 else 8):
        return
    (base, dfmt, nfmt, width, height, dsel, base_level, last_level, tiling, t_type, depth, pitch,
     base_array, last_array) = tsharp_fields(sregs, w, srsrc, r128)
    if tiling != LINEAR_TILING_INDEX:
        fail(ws, w, ERR_TILED, tiling)
        return
    if t_type != IMG_1D and t_type != IMG_2D and t_type != IMG_3D and t_type != IMG_1D_ARRAY \
            and t_type != IMG_2D_ARRAY:
        fail(ws, w, ERR_RESOURCE, t_type)
        return
    is_arr, ncoord, nsp, nlevels, nslices = image_geometry(t_type, base_level, last_level,
                                                           base_array, last_array)
    ndm = 0
    for i in range(4):
        if (dmask >> i) & 1:
            ndm += 1
    if kind != K_RESINFO:
        is_store = kind == K_STORE_FORMAT or (kind == K_ATOMIC)
        if kind == K_ATOMIC:
            if dfmt != 4 and dfmt != 11:
                fail(ws, w, ERR_FORMAT, dfmt | (nfmt << 8) | (1 << 16))
                return
        elif not fmt_valid(dfmt, nfmt, is_store):
            fail(ws, w, ERR_FORMAT, dfmt | (nfmt << 8) | ((1 if is_store else 0) << 16))
            return
    bpe = FMT_BYTES[dfmt] if dfmt <= 14 else 4
    nva = 1
    if kind == K_RESINFO:
        nva = 1
    elif kind == K_SAMPLE:
        nva = ncoord + _nonzero(variant & SF_O) + _nonzero(variant & SF_B) + \
            _nonzero(variant & SF_C) + 2 * nsp * _nonzero(variant & SF_D) + \
            _nonzero(variant & SF_CL) + _nonzero(variant & SF_L)
        if (variant & SF_GATHER) and t_type != IMG_2D and t_type != IMG_2D_ARRAY:
            fail(ws, w, ERR_RESOURCE, t_type)
            return
    else:
        nva = ncoord + has_mip
    if not vgpr_ok(ws, w, vaddr, nva):
        return
    ndata = max(ndm, 1)
    if kind == K_SAMPLE and (variant & SF_GATHER):
        ndata = 4
    if not vgpr_ok(ws, w, vdata, ndata + (1 if tfe and kind != K_STORE_FORMAT else 0)):
        return
    vals = scratch.view(np.uint64)[:4]
    out = scratch.view(np.uint64)[4:8]
    one = fmt_one(nfmt)

    if kind == K_RESINFO:
        for l in range(64):
            if not lane_on(ex, l):
                continue
            m = np.int64(vreg(vgpr, ws, w, vaddr, l))
            if m < nlevels:
                _, _, wl, hl, dl = _img_level(t_type, pitch, width, height, depth, bpe, base_level + m)
                out[0] = U64(wl)
                out[1] = U64(nslices if t_type == IMG_1D_ARRAY else hl)
                out[2] = U64(nslices if t_type == IMG_2D_ARRAY else (dl if t_type == IMG_3D else 1))
                out[3] = U64(nlevels)
            else:
                for i in range(4):
                    out[i] = U64(0)
            j = 0
            for i in range(4):
                if (dmask >> i) & 1:
                    vset(vgpr, ws, w, vdata + j, l, out[i])
                    j += 1
        return

    if kind == K_SAMPLE:
        image_sample(w, sregs, ws, vgpr, mem_data, mem_mapped, mem_base, faults, variant,
                     get_lod, unorm, dmask, vaddr, vdata, ssamp, base, dfmt, nfmt, dsel,
                     base_level, nlevels, t_type, width, height, depth, pitch, base_array,
                     nslices, nsp, is_arr, bpe, vals, out, ex)
        return

    for l in range(64):
        if not lane_on(ex, l):
            continue
        x = np.int64(vreg(vgpr, ws, w, vaddr, l))
        y = np.int64(vreg(vgpr, ws, w, vaddr + 1, l)) if ncoord > 1 else 0
        z = np.int64(vreg(vgpr, ws, w, vaddr + 2, l)) if ncoord > 2 else 0
        mip = np.int64(vreg(vgpr, ws, w, vaddr + ncoord, l)) if has_mip else 0
        addr, inr = texel_address(t_type, base, pitch, width, height, depth, bpe, base_level,
                                  nlevels, base_array, nslices, is_arr, x, y, z, mip)
        failed = False
        if kind == K_LOAD_FORMAT:
            if inr:
                if not _img_fetch(mem_data, mem_mapped, mem_base, addr, dfmt, nfmt, vals):
                    failed = True
                    record_fault(ws, w, faults, addr, l, 0)
            else:
                for k in range(4):
                    vals[k] = U64(0)
            j = 0
            for i in range(4):
                if (dmask >> i) & 1:
                    vset(vgpr, ws, w, vdata + j, l, dst_select(vals, (dsel >> (3 * i)) & 7, one))
                    j += 1
            if tfe:
                vset(vgpr, ws, w, vdata + ndata, l, U64(1) if failed else U64(0))
        elif kind == K_STORE_FORMAT:
            if not inr:
                continue
            nc = FMT_NC[dfmt]
            j = 0
            for k in range(4):
                if not (dmask >> k) & 1:
                    continue
                v = vreg(vgpr, ws, w, vdata + j, l)
                j += 1
                if k >= nc:
                    continue
                bits, coff, csize, shift = component_layout(dfmt, k)
                if not store_component(mem_data, mem_mapped, mem_base, addr + coff, v, bits,
                                       csize, shift, nfmt):
                    record_fault(ws, w, faults, addr + coff, l, 1)
        else:  # atomic
            is_cmp = aop == ATOMIC_CMPSWAP or aop == ATOMIC_FCMPSWAP
            nd = ndm // 2 if is_cmp else ndm
            nbytes = 8 if nd >= 2 else 4
            if nbytes > bpe:
                fail(ws, w, ERR_FORMAT, dfmt | (nfmt << 8) | (1 << 16))
                return
            row = ws[w, WS_VBASE] + vdata
            v = lane_value(vgpr, row, l, nbytes // 4)
            cmp = lane_value(vgpr, row + nd, l, nbytes // 4) if is_cmp else U64(0)
            old = U64(0)
            if inr:
                old, ok = mem_atomic(mem_data, mem_mapped, mem_base, addr, aop, v, cmp, nbytes)
                if not ok:
                    record_fault(ws, w, faults, addr, l, 1)
            if glc:
                set_lane_value(vgpr, row, l, nbytes // 4, old)


@njit
def _nonzero(x):
    return 1 if x != 0 else 0


@njit
def _sext6(v):
    v &= 0x3F
    return v - 64 if v & 0x20 else v


@njit
def _depth_compare(func, ref, texel):
    """S# DEPTH_COMPARE_FUNC (GcnMemHandling.md): 1 if ref <op> texel."""
    if func == 0:
        return False
    if func == 1:
        return ref < texel
    if func == 2:
        return ref == texel
    if func == 3:
        return ref <= texel
    if func == 4:
        return ref > texel
    if func == 5:
        return ref != texel
    if func == 6:
        return ref >= texel
    return True


@njit
def image_sample(w, sregs, ws, vgpr, mem_data, mem_mapped, mem_base, faults, flags, get_lod,
                 unorm, dmask, vaddr, vdata, ssamp, base, dfmt, nfmt, dsel, base_level, nlevels,
                 t_type, width, height, depth, pitch, base_array, nslices, nsp, is_arr, bpe, vals,
                 out, ex):
    """image_sample (+ _l _lz _b _c _d _cd _cl _o), image_gather4 (same suffixes), image_get_lod.

    VADDR (GcnMemHandling.md): {offset} {bias} {z-compare} {derivatives} {x [y] [z|slice]}
    {clamp} {lod}, all f32 except the offset dword (6-bit signed x, y, z offsets at bits 0, 8,
    16, added to the integer texel indices).
    Coordinates are normalized unless the instruction's unorm bit or the S# FORCE_UNNORM is
    set (then the base level is used). LOD: _lz 0; _l the given value; otherwise
    log2(max(|dP/dx|, |dP/dy|)) in texels of the base level (isotropic, computed in f64)
    from _d/_cd derivatives (dx/dh ... then dx/dv ...) or, as a compute wave has them, the
    coarse quad derivatives P[quad lane 1] - P[quad lane 0] (horizontal) and P[lane 2] -
    P[lane 0] (vertical), read from the quad's VGPRs whatever its EXEC. Then + _b bias + S#
    LOD_BIAS (not for _lz), clamped to [S# MIN_LOD, MAX_LOD] and to the _cl clamp.
    MIP_FILTER none uses the base level; point picks the nearest level floor(lod + 0.5);
    linear blends levels floor(lod) and floor(lod) + 1 as (1-f)*r0 + f*r1 in f32 with
    f = frac(lod) quantized down to 1/256 (point for integer formats and gather4).
    Filter: the S# XY mag filter for LOD <= 0, the min filter otherwise (aniso values act as
    bilinear); integer formats always sample as point. Point takes texel floor(u*size);
    bilinear the texels around u*size - 0.5 with weights quantized down to 1/256 (CLRX's
    quoted precision), blended in f32 as (1-a)*t0 + a*t1 along x, then y, then z.
    Clamp modes: wrap, mirror, clamp-last-texel, mirror-once-last-texel, and the border modes
    (half-border treated as border) with BORDER_COLOR_TYPE (0,0,0,0) / (0,0,0,1) / (1,1,1,1);
    the register colour reads as 0. Array slices round to nearest even and clamp.
    _c: each fetched texel becomes (r, r, r, r) with r = 1.0 if z-compare <op> texel.x by the
    S# DEPTH_COMPARE_FUNC, else 0.0 (percentage-closer filtering when bilinear).
    gather4: the 2x2 bilinear footprint's component (lowest DMASK bit, after DST_SEL) as
    (x, y, z, w) = (i0,j1), (i1,j1), (i1,j0), (i0,j0), always four VGPRs; 2D and 2D arrays.
    get_lod: (LOD after bias and clamps, LOD before them) as f32, packed by DMASK.
    Results apply the T# DST_SEL and are packed by DMASK.
    """
    if not sgpr_ok(ws, w, ssamp, 4):
        return
    s0, s1, s2, s3 = descriptor_words(sregs, w, ssamp)
    clamp_mode = np.zeros(3, np.int64)
    clamp_mode[0] = np.int64(s0 & U64(7))
    clamp_mode[1] = np.int64((s0 >> U64(3)) & U64(7))
    clamp_mode[2] = np.int64((s0 >> U64(6)) & U64(7))
    cmp_func = np.int64((s0 >> U64(12)) & U64(7))
    unnorm = unorm != 0 or ((s0 >> U64(15)) & U64(1)) != U64(0)
    min_lod = np.float64(s1 & U64(0xFFF)) / 256.0
    max_lod = np.float64((s1 >> U64(12)) & U64(0xFFF)) / 256.0
    bias_raw = np.int64(s2 & U64(0x3FFF))
    if bias_raw >= 8192:
        bias_raw -= 16384
    lod_bias = np.float64(bias_raw) / 256.0
    mag_filter = np.int64((s2 >> U64(20)) & U64(3))
    min_filter = np.int64((s2 >> U64(22)) & U64(3))
    mip_filter = np.int64((s2 >> U64(26)) & U64(3))
    border_type = np.int64((s3 >> U64(30)) & U64(3))
    integer_fmt = nfmt == NF_UINT or nfmt == NF_SINT
    one = fmt_one(nfmt)
    gather = (flags & SF_GATHER) != 0
    # VADDR layout
    p = 0
    a_off = p
    p += _nonzero(flags & SF_O)
    a_bias = p
    p += _nonzero(flags & SF_B)
    a_zc = p
    p += _nonzero(flags & SF_C)
    a_der = p
    p += 2 * nsp * _nonzero(flags & SF_D)
    a_body = p
    p += nsp + (1 if is_arr else 0)
    a_cl = p
    p += _nonzero(flags & SF_CL)
    a_lod = p
    gcomp = 0
    for i in range(4):
        if (dmask >> i) & 1:
            gcomp = i
            break
    _, _, w0, h0, d0 = _img_level(t_type, pitch, width, height, depth, bpe, base_level)
    size0 = np.zeros(3, np.float64)
    size0[0] = w0
    size0[1] = h0
    size0[2] = d0
    xv = np.zeros(4, np.float32)
    yacc = np.zeros(4, np.float32)
    zacc = np.zeros(4, np.float32)
    gv = np.zeros(4, np.uint64)
    mip_acc = np.zeros(4, np.float32)
    idx = np.zeros((3, 2), np.int64)
    wgt = np.zeros((3, 2), np.float32)
    for l in range(64):
        if not lane_on(ex, l):
            continue
        # level of detail
        raw_lod = 0.0
        if flags & SF_L:
            raw_lod = np.float64(as_f32(vreg(vgpr, ws, w, vaddr + a_lod, l)))
        elif not (flags & SF_LZ):
            q = l & 0x3C
            gx = 0.0
            gy = 0.0
            for d in range(nsp):
                if flags & SF_D:
                    dx = np.float64(as_f32(vreg(vgpr, ws, w, vaddr + a_der + d, l)))
                    dy = np.float64(as_f32(vreg(vgpr, ws, w, vaddr + a_der + nsp + d, l)))
                else:
                    c0 = np.float64(as_f32(vreg(vgpr, ws, w, vaddr + a_body + d, q)))
                    dx = np.float64(as_f32(vreg(vgpr, ws, w, vaddr + a_body + d, q + 1))) - c0
                    dy = np.float64(as_f32(vreg(vgpr, ws, w, vaddr + a_body + d, q + 2))) - c0
                if not unnorm:
                    dx *= size0[d]
                    dy *= size0[d]
                gx += dx * dx
                gy += dy * dy
            rho2 = max(gx, gy)
            raw_lod = 0.5 * np.log2(rho2) if rho2 > 0 else -1e30
        lod = raw_lod
        if flags & SF_B:
            lod += np.float64(as_f32(vreg(vgpr, ws, w, vaddr + a_bias, l)))
        if not (flags & SF_LZ):
            lod += lod_bias
        lod = min(max(lod, min_lod), max_lod)
        if flags & SF_CL:
            lod = min(lod, np.float64(as_f32(vreg(vgpr, ws, w, vaddr + a_cl, l))))
        if get_lod:
            out[0] = U64(f32_bits(np.float32(lod)))
            out[1] = U64(f32_bits(np.float32(max(raw_lod, -3.0e38))))
            out[2] = U64(0)
            out[3] = U64(0)
            j = 0
            for i in range(4):
                if (dmask >> i) & 1:
                    vset(vgpr, ws, w, vdata + j, l, out[i])
                    j += 1
            continue
        level = 0
        nmip = 1
        mfrac = 0.0
        if mip_filter != 0 and not unnorm:
            if mip_filter == 2 and not integer_fmt and not gather and lod > 0:
                level = np.int64(np.floor(lod))
                mfrac = np.floor((lod - np.floor(lod)) * 256.0) / 256.0
                if level >= nlevels - 1:
                    level = nlevels - 1
                    mfrac = 0.0
                if mfrac > 0.0:
                    nmip = 2
            else:
                level = np.int64(np.floor(lod + 0.5)) if lod > 0 else 0
                level = min(level, nlevels - 1)
        bilinear = gather or ((min_filter if lod > 0 else mag_filter) != 0 and not integer_fmt)
        slice_ = 0
        if is_arr:
            sf = np.float64(as_f32(vreg(vgpr, ws, w, vaddr + a_body + nsp, l)))
            if sf != sf:
                sf = 0.0
            sf = min(max(sf, 0.0), np.float64(nslices - 1))
            slice_ = np.int64(rne_f64(sf)) + base_array
        offw = np.int64(vreg(vgpr, ws, w, vaddr + a_off, l)) if flags & SF_O else 0
        zref = as_f32(vreg(vgpr, ws, w, vaddr + a_zc, l)) if flags & SF_C else np.float32(0.0)
        for mi in range(nmip):
            loff, rp, wl, hl, dl = _img_level(t_type, pitch, width, height, depth, bpe, base_level + level + mi)
            for d in range(3):
                idx[d, 0] = 0
                idx[d, 1] = 0
                wgt[d, 0] = np.float32(1.0)
                wgt[d, 1] = np.float32(0.0)
                if d >= nsp:
                    continue
                n = wl if d == 0 else (hl if d == 1 else dl)
                u = np.float64(as_f32(vreg(vgpr, ws, w, vaddr + a_body + d, l)))
                if u != u:
                    u = 0.0
                t = u if unnorm else u * np.float64(n)
                o = _sext6(offw >> (8 * d)) if flags & SF_O else 0
                if bilinear:
                    t -= 0.5
                i0 = np.floor(t)
                i0i = (np.int64(i0) if abs(i0) < 1e15 else 0) + o
                idx[d, 0] = _wrap_coord(i0i, n, clamp_mode[d])
                if bilinear:
                    a = np.floor((t - i0) * 256.0) / 256.0
                    idx[d, 1] = _wrap_coord(i0i + 1, n, clamp_mode[d])
                    wgt[d, 0] = np.float32(1.0 - a)
                    wgt[d, 1] = np.float32(a)
            nz = 2 if (nsp >= 3 and bilinear) else 1
            ny = 2 if (nsp >= 2 and bilinear) else 1
            nx = 2 if bilinear else 1
            # blend as (1-a)*t0 + a*t1 along x, then y, then z (f32 products and sums)
            for kz in range(nz):
                for ky in range(ny):
                    for kx in range(nx):
                        ix = idx[0, kx]
                        iy = idx[1, ky]
                        iz = idx[2, kz]
                        if ix < 0 or iy < 0 or iz < 0:
                            # border colour
                            for k in range(4):
                                vals[k] = U64(0)
                            if border_type == 1:
                                vals[3] = one
                            elif border_type == 2:
                                for k in range(4):
                                    vals[k] = one
                        else:
                            zz = slice_ if is_arr else iz
                            addr = np.int64(base) + loff + ((zz * hl + iy) * rp + ix) * bpe
                            if not _img_fetch(mem_data, mem_mapped, mem_base, addr, dfmt, nfmt, vals):
                                record_fault(ws, w, faults, addr, l, 0)
                                for k in range(4):
                                    vals[k] = U64(0)
                        if flags & SF_C:
                            r = F32_ONE if _depth_compare(cmp_func, zref, as_f32(vals[0])) else U64(0)
                            for k in range(4):
                                vals[k] = r
                        if gather:
                            # x = (i0, j1), y = (i1, j1), z = (i1, j0), w = (i0, j0)
                            gi = (0 if kx == 0 else 1) if ky == 1 else (2 if kx == 1 else 3)
                            gv[gi] = dst_select(vals, (dsel >> (3 * gcomp)) & 7, one)
                            continue
                        if not bilinear:
                            for k in range(4):
                                out[k] = vals[k]
                            continue
                        for k in range(4):
                            tp = wgt[0, kx] * as_f32(vals[k])
                            xv[k] = tp if kx == 0 else np.float32(xv[k] + tp)
                    if bilinear and not gather:
                        for k in range(4):
                            tp = wgt[1, ky] * xv[k]
                            yacc[k] = tp if (ky == 0 or ny == 1) else np.float32(yacc[k] + tp)
                if bilinear and not gather:
                    for k in range(4):
                        tp = wgt[2, kz] * yacc[k]
                        zacc[k] = tp if (kz == 0 or nz == 1) else np.float32(zacc[k] + tp)
            if bilinear:
                for k in range(4):
                    out[k] = U64(f32_bits(zacc[k]))
            if nmip == 2:
                wm = np.float32(1.0 - mfrac) if mi == 0 else np.float32(mfrac)
                for k in range(4):
                    tp = wm * as_f32(out[k])
                    mip_acc[k] = tp if mi == 0 else np.float32(mip_acc[k] + tp)
        if nmip == 2:
            for k in range(4):
                out[k] = U64(f32_bits(mip_acc[k]))
        if gather:
            for i in range(4):
                vset(vgpr, ws, w, vdata + i, l, gv[i])
            continue
        j = 0
        for i in range(4):
            if (dmask >> i) & 1:
                vset(vgpr, ws, w, vdata + j, l, dst_select(out, (dsel >> (3 * i)) & 7, one))
                j += 1
