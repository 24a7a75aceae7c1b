"""gfx6 (GCN 1.0, Southern Islands) as a target: the tahiti / hd7970 presets decode and run
code as GCN 1.0 does where it differs from GCN 1.1, and assemble/disassemble take
target="gfx6". References: llvm-mc -mcpu=tahiti (encodings), CLRX's GCN 1.0 tables and
GcnInstrs*.md (opcodes, semantics), Python's math.frexp (values)."""
from __future__ import annotations

import math
import re
import shutil
import struct
import subprocess
from pathlib import Path

import numpy as np
import pytest

import gcnemu
from gcnemu.errors import AssemblerError, DecodeError, DispatchError, GcnEmuError
from gcnemu.isa import table
from gcnemu.isa.decoder import decode
from gcnemu.mem.descriptors import encode_vsharp
from gcnemu.mem.space import Memory

ROOT = Path(__file__).resolve().parents[1]
ALL_S = ROOT.parent / "shared" / "reference" / "llvm-mc-tests" / "gfx7_asm_all.s"
LLVM_MC = shutil.which("llvm-mc")


def test_presets():
    for name in ("tahiti", "hd7970"):
        assert gcnemu.GPU(name).config.isa == "gfx6"
    assert gcnemu.GPU().config.isa == "gfx7"
    bad = gcnemu.GPUConfig("gfx8-card", 8, 1000, 4, isa="gfx8")
    with pytest.raises(GcnEmuError, match="isa: unknown target 'gfx8'"):
        gcnemu.GPU(bad)
    with pytest.raises(ValueError, match="unknown target"):
        gcnemu.disassemble(b"", target="gfx9")


#: the two oracles disagree on these (gen_isa_table follows CLRX): llvm-mc 14 encodes them for
#: tahiti, CLRX's GCN 1.0 opcode tables do not have them (GcnInstrsMubuf.md: BUFFER_LOAD/
#: STORE_DWORDX3 GCN 1.1 only; GcnInstrsSopp.md: S_CBRANCH_CDBG*, S_SETKILL GCN 1.1)
CLRX_SAYS_CI_ONLY = {"buffer_load_dwordx3", "buffer_store_dwordx3", "s_cbranch_cdbgsys",
                     "s_cbranch_cdbguser", "s_cbranch_cdbgsys_or_user",
                     "s_cbranch_cdbgsys_and_user", "s_setkill"}
#: ... and llvm-mc rejects these for tahiti: v_mov_fed_b32 is unknown to llvm-mc 14 for every
#: CPU; opcode 370 is V_QSAD_U8 on GCN 1.0 in CLRX's GcnInstrsVop3.md (LLVM 14 has it CI+)
LLVM_LACKS = {"v_mov_fed_b32", "v_qsad_pk_u16_u8"}


@pytest.mark.skipif(LLVM_MC is None or not ALL_S.exists(),
                    reason="needs llvm-mc and ../shared's LLVM gfx7 MC test")
def test_every_gfx7_mc_line_against_llvm_mc_tahiti(tmp_path):
    """All 29,030 lines of LLVM's gfx7 MC test, assembled by llvm-mc -mcpu=tahiti: what it
    encodes, our gfx6 assembler encodes alike and our gfx6 decoder takes back; what it rejects
    (FLAT, the CI-only opcodes, flat_scratch, literal SMRD offsets), our gfx6 assembler
    rejects and our gfx6 decoder refuses in its gfx7 encoding."""
    lines = [ln for ln in ALL_S.read_text().split("\n") if ln.strip() and not ln.startswith("//")]
    gfx7 = {}
    text = ALL_S.read_text().split("\n")
    for i, ln in enumerate(text[:-1]):
        m = re.search(r"\[([0-9a-fx,]+)\]", text[i + 1])
        if ln.strip() and not ln.startswith("//") and m:
            gfx7[ln] = bytes(int(x, 16) for x in m.group(1).split(","))
    src = tmp_path / "all.s"
    src.write_text("\n".join(lines) + "\n")
    r = subprocess.run([LLVM_MC, "-arch=amdgcn", "-mcpu=tahiti", "-show-encoding", str(src)],
                       capture_output=True, text=True, timeout=300)
    rejected = {int(m.group(1)) for m in re.finditer(r"all\.s:(\d+):\d+: error", r.stderr)}
    encs = iter(bytes(int(x, 16) for x in m.group(1).split(","))
                for m in re.finditer(r"encoding: \[([0-9a-fx,]+)\]", r.stdout))
    bad, same, refused = [], 0, 0
    for i, ln in enumerate(lines, 1):
        mn = re.sub(r"_e(32|64)$", "", ln.split()[0])
        try:
            ours = gcnemu.assemble(ln, target="gfx6")
        except AssemblerError:
            ours = None
        if i in rejected:
            if mn in LLVM_LACKS:
                continue
            if ours is not None:
                bad.append((ln, "llvm-mc tahiti rejects it, we assemble it"))
            with pytest.raises(DecodeError):
                decode(gfx7[ln], table.GFX6)
            refused += 1
            continue
        want = next(encs)
        if mn in CLRX_SAYS_CI_ONLY:
            assert ours is None, ln
            continue
        if ours != want:
            bad.append((ln, ours and ours.hex(), want.hex()))
            continue
        ins = decode(ours, table.GFX6)
        assert len(ins) == 1 and ins[0].size == len(ours)
        same += 1
    assert not bad, bad[:20]
    assert same > 25000 and refused > 3000, (same, refused)


def test_ci_only_instructions_are_errors_on_gfx6():
    for text in ("flat_load_dword v1, v[3:4]", "v_trunc_f64 v[2:3], v[4:5]",
                 "v_mad_u64_u32 v[2:3], s[4:5], v1, v2, v[4:5]", "ds_read_b128 v[4:7], v1",
                 "s_dcache_inv_vol", "buffer_wbinvl1_vol"):
        code = gcnemu.assemble(text)                      # gfx7 encodes it
        with pytest.raises(AssemblerError, match="GCN 1.1 \\(gfx7\\) only"):
            gcnemu.assemble(text, target="gfx6")
        with pytest.raises(DecodeError, match="GCN 1.0 \\(gfx6\\)"):
            gcnemu.disassemble(code, target="gfx6")
    # operands: FLAT_SCRATCH and a literal SMRD offset are GCN 1.1 only
    for text, msg in (("s_mov_b32 flat_scratch_lo, s1", "flat_scratch"),
                      ("s_load_dword s5, s[2:3], 0x1234", "literal")):
        code = gcnemu.assemble(text)
        with pytest.raises(AssemblerError, match=msg):
            gcnemu.assemble(text, target="gfx6")
        with pytest.raises(DecodeError, match=msg):
            gcnemu.disassemble(code, target="gfx6")
    # a gfx6-only opcode (CLRX GcnInstrsMubuf.md: BUFFER_ATOMIC_RSUB, 52, GCN 1.0) round-trips
    code = gcnemu.assemble("buffer_atomic_rsub v1, v2, s[4:7], 0 offen glc", target="gfx6")
    assert code[:4] == (0xE0000000 | 52 << 18 | 1 << 14 | 1 << 12).to_bytes(4, "little")
    text = gcnemu.disassemble(code, target="gfx6")
    assert text.startswith("buffer_atomic_rsub") and gcnemu.assemble(text, target="gfx6") == code
    with pytest.raises(DecodeError, match="buffer_atomic_rsub is GCN 1.0 \\(gfx6\\) only"):
        gcnemu.disassemble(code)


def test_gfx7_code_object_on_a_gfx6_gpu_names_the_instruction():
    k = gcnemu.load(str(ROOT / "kernels" / "saxpy" / "kernel.hsaco")).kernel("saxpy")
    gpu = gcnemu.GPU("tahiti")
    y = gpu.to_device(np.ones(64, np.float32))
    with pytest.raises(DispatchError, match=r"cannot run on tahiti \(gfx6\).*"
                                            r"v_mad_u64_u32 is GCN 1.1 \(gfx7\) only.*"
                                            r"options=\['-mcpu=gfx600'\]"):
        gpu.dispatch(k, grid=(64,), block=(64,), args=[y, y, np.float32(1), np.uint32(64)])


def _frexp(x):
    m, e = math.frexp(x)
    return m, e


F32 = [6.0, -0.3, 1e-30, 3.4e38, 0.0, -0.0]
SPECIAL32 = {"inf": 0x7F800000, "-inf": 0xFF800000, "nan": 0x7FC00000}


@pytest.mark.parametrize("target", ["gfx6", "gfx7"])
def test_frexp_differs_at_inf_and_nan(target):
    """CLRX GcnInstrsVop1.md: V_FREXP_EXP_I32_F32/F64 give -1 on GCN 1.0 and 0 later for inf
    and NaN; V_FREXP_MANT_F32/F64 give -NaN on GCN 1.0 and the infinity later for +-inf."""
    f32 = [struct.unpack("<I", struct.pack("<f", x))[0] for x in F32] + list(SPECIAL32.values())
    lanes = np.array(f32 + [0] * (64 - len(f32)), np.uint32)
    f64 = [struct.unpack("<Q", struct.pack("<d", x))[0] for x in F32] + \
        [0x7FF0000000000000, 0xFFF0000000000000, 0x7FF8000000000000]
    d = np.array(f64 + [0] * (64 - len(f64)), np.uint64)
    st = gcnemu.run_snippet("""
        v_frexp_exp_i32_f32 v1, v0
        v_frexp_mant_f32 v2, v0
        v_frexp_exp_i32_f64 v3, v[4:5]
        v_frexp_mant_f64 v[6:7], v[4:5]
        s_endpgm""", vgpr={0: lanes, 4: (d & 0xFFFFFFFF).astype(np.uint32),
                           5: (d >> 32).astype(np.uint32)}, target=target)
    exp32, mant32 = st.vgpr[1].view(np.int32), st.vgpr[2]
    exp64 = st.vgpr[3].view(np.int32)
    mant64 = st.vgpr[6].astype(np.uint64) | st.vgpr[7].astype(np.uint64) << np.uint64(32)
    for i, x in enumerate(F32):           # finite values: the same on both, as math.frexp
        m, e = _frexp(float(np.float32(x)))
        assert exp32[i] == (e if x else 0) and mant32.view(np.float32)[i] == np.float32(m)
        m, e = _frexp(x)
        assert exp64[i] == (e if x else 0) and mant64.view(np.float64)[i] == m
    n = len(F32)
    gfx6 = target == "gfx6"
    assert exp32[n:n + 3].tolist() == ([-1] * 3 if gfx6 else [0] * 3)
    assert exp64[n:n + 3].tolist() == ([-1] * 3 if gfx6 else [0] * 3)
    assert mant32[n:n + 2].tolist() == ([0xFFC00000] * 2 if gfx6 else [0x7F800000, 0xFF800000])
    assert mant64[n:n + 2].tolist() == ([0xFFF8000000000000] * 2 if gfx6
                                        else [0x7FF0000000000000, 0xFFF0000000000000])
    assert math.isnan(mant32.view(np.float32)[n + 2])      # NaN stays NaN on both


def test_buffer_atomic_rsub_on_gfx6():
    """CLRX GcnInstrsMubuf.md, BUFFER_ATOMIC_RSUB (GCN 1.0): *VM = VDATA - *VM, VDATA = P with
    GLC."""
    mem = Memory()
    buf = mem.allocate(256)
    old = np.arange(64, dtype=np.uint32) * 7 + 5
    mem.write(buf, old)
    sg = {4 + i: int(w) for i, w in enumerate(encode_vsharp(buf, 256))}
    data = np.full(64, 100, np.uint32)
    st = gcnemu.run_snippet("buffer_atomic_rsub v1, v2, s[4:7], 0 offen glc\ns_endpgm",
                            sgpr=sg, vgpr={1: data, 2: np.arange(64, dtype=np.uint32) * 4},
                            memory=mem, target="gfx6")
    assert st.vgpr[1].tolist() == old.tolist()
    want = (100 - old.astype(np.int64)) & 0xFFFFFFFF
    assert mem.read_array(buf, np.uint32, 64).tolist() == want.tolist()


@pytest.mark.skipif(shutil.which("clang-14") is None, reason="needs clang-14, lld-14, libclc-14")
def test_clang_gfx600_code_object_runs_on_both_generations():
    """clang -mcpu=gfx600 (Tahiti) code objects load (e_flags mach gfx600) and run: MUBUF
    addr64 where gfx700 code uses FLAT."""
    k = gcnemu.load(str(ROOT / "kernels" / "saxpy" / "kernel.cl"), options=["-mcpu=gfx600"]).kernel("saxpy")
    names = {i.name for i in k.program.instructions}
    assert not any(n.startswith("flat_") for n in names) and any(n.startswith("buffer_") for n in names)
    rng = np.random.default_rng(6)
    x, y = rng.standard_normal(1000).astype(np.float32), rng.standard_normal(1000).astype(np.float32)
    for preset in ("tahiti", "xbox-one"):
        gpu = gcnemu.GPU(preset)
        yb = gpu.to_device(y)
        gpu.dispatch(k, grid=(1024,), block=(256,), args=[yb, gpu.to_device(x), np.float32(2.5),
                                                          np.uint32(1000)])
        want = np.float32(2.5) * x + y          # the product rounded, then the sum (v_mac_f32)
        assert np.array_equal(yb.to_numpy(np.float32).view(np.uint32), want.view(np.uint32))


@pytest.mark.skipif(shutil.which("clang-14") is None, reason="needs clang-14, lld-14, libclc-14")
def test_pyopencl_front_end_builds_gfx600_code_for_a_gfx6_preset(monkeypatch):
    """gcnemu.cl on GCNEMU_CL_PRESET=tahiti compiles for gfx600 (gfx700 code would be refused
    by the GCN 1.0 GPU), and the kernel computes what numpy does."""
    import gcnemu.cl as cl
    monkeypatch.setenv("GCNEMU_CL_PRESET", "tahiti")
    ctx = cl.create_some_context()
    assert "gfx600" in ctx.devices[0].name
    q = cl.CommandQueue(ctx)
    x = np.arange(256, dtype=np.float32)
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=x)
    prg = cl.Program(ctx, "__kernel void twice(__global float *a) "
                          "{ a[get_global_id(0)] *= 2.0f; }").build()
    names = {i.name for i in prg.twice._kernel.program.instructions}
    assert any(n.startswith("buffer_") for n in names)        # gfx600 has no FLAT
    assert not any(n.startswith("flat_") for n in names)
    prg.twice(q, x.shape, None, buf)
    out = np.empty_like(x)
    cl.enqueue_copy(q, out, buf)
    assert np.array_equal(out, x * 2)
