"""Spec section 1 (execution domain): Target and its device documents (DESIGN section 3,
target), Topology, target inheritance over the owner chain, effective topologies,
resolve_topology, publish(), and Mesh naming one effective level."""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

import numpy as np
import pytest

import tilefoundry
from tilefoundry import (
    Module,
    Target,
    TensorType,
    Topology,
    Var,
    VerifyError,
    ops,
    print_module,
    select,
)
from tilefoundry.api.hir import Function
from tilefoundry.builtin.target import known_devices
from tilefoundry.dialects.tf.mesh import MeshOp as Mesh

T4 = TensorType((4,), "f32")
LEVELS = (Topology("cluster", 2), Topology("cta", 4), Topology("warp", 4))

SCHEMA_KEYS = {
    "name",
    "aliases",
    "display_name",
    "vendor",
    "backend",
    "arch",
    "sm_count",
    "warp_size",
    "max_threads_per_cta",
    "max_ctas_per_cluster",
    "shared_memory_per_sm_bytes",
    "max_shared_memory_per_cta_bytes",
    "registers_per_sm",
    "l2_cache_bytes",
    "memory_bytes",
    "memory_bandwidth_bytes_per_s",
    "peak_flops_per_s",
    "topology",
    "sources",
}


def neg_fn(name: str = "f") -> Function:
    x = Var("x", T4)
    return Function(name=name, params=[x], body=ops.neg(x))


def mesh_fn(level: str, name: str = "k") -> Function:
    x = Var("x", T4)
    return Function(name=name, params=[x], body=Mesh(level, lambda: ops.exp(x)))


def device_documents() -> dict[str, dict[str, Any]]:
    folder = resources.files("tilefoundry.builtin.target").joinpath("devices")
    found = {}
    for entry in folder.iterdir():
        if entry.name.endswith(".json"):
            found[entry.name] = json.loads(entry.read_text(encoding="utf-8"))
    return found


# ---------------------------------------------------------------------------------------------
# Target


@pytest.mark.parametrize(
    ("name", "canonical", "arch"),
    [
        ("h100", "h100", "sm_90a"),
        ("H100", "h100", "sm_90a"),
        ("h100-sxm", "h100", "sm_90a"),
        ("h200", "h200", "sm_90a"),
        ("a100", "a100", "sm_80"),
        ("A100", "a100", "sm_80"),
        ("l40s", "l40s", "sm_89"),
        ("b200", "b200", "sm_100a"),
        ("mi300x", "mi300x", "gfx942"),
        ("MI300X", "mi300x", "gfx942"),
        ("cpu", "cpu", "x86-64"),
    ],
)
def test_target_derives_the_arch_from_the_device(name: str, canonical: str, arch: str) -> None:
    target = Target(name)
    assert target.name == canonical
    assert target.arch == arch
    assert target == Target(canonical)


@pytest.mark.parametrize("backend", ["cuda", "CUDA", "rocm"])
def test_a_bare_backend_has_no_arch(backend: str) -> None:
    target = Target(backend)
    assert target.name == backend.lower()
    assert target.arch is None


def test_an_unknown_target_is_refused_listing_the_known_ones() -> None:
    with pytest.raises(ValueError, match=r"unknown target 'tpu-v9'") as info:
        Target("tpu-v9")
    message = str(info.value)
    for name in ("a100", "b200", "h100", "h200", "l40s", "mi300x", "cpu", "cuda", "rocm"):
        assert name in message


def test_module_target_accepts_a_name_or_a_target() -> None:
    assert Module(name="m", target="H100").target == Target("h100")
    assert Module(name="m", target=Target("mi300x")).target == Target("mi300x")
    with pytest.raises(ValueError, match=r"unknown target 'nope'"):
        Module(name="m", target="nope")


def test_the_arch_of_a_root_is_derived_from_the_named_device() -> None:
    m = Module(name="m", target="mi300x", topologies=())
    assert m.resolve_target().arch == "gfx942"
    assert "gfx942" not in print_module(m)  # only the device is named
    assert '#tf.target<"mi300x">' in print_module(m)


# ---------------------------------------------------------------------------------------------
# Device documents


def test_every_device_document_loads_and_has_the_schema_keys() -> None:
    documents = device_documents()
    assert documents
    for file, document in documents.items():
        missing = SCHEMA_KEYS - set(document)
        assert not missing, f"{file} lacks {sorted(missing)}"
        assert file == f"{document['name']}.json"
        assert set(document["topology"]) >= {"levels", "max_extent_within_parent"}
        assert document["sources"], f"{file} names no source"
        assert Target(document["name"]).arch == document["arch"]
        for alias in document["aliases"]:
            assert Target(alias).name == document["name"]


def test_the_required_devices_are_present() -> None:
    known = set(known_devices())
    assert {"h100", "h200", "a100", "l40s", "b200", "mi300x", "cpu"} <= known
    assert {d["name"] for d in device_documents().values()} == known


@pytest.mark.parametrize(
    ("name", "vendor", "sm_count", "warp_size"),
    [
        ("h100", "nvidia", 132, 32),
        ("h200", "nvidia", 132, 32),
        ("a100", "nvidia", 108, 32),
        ("l40s", "nvidia", 142, 32),
        ("b200", "nvidia", 148, 32),
        ("mi300x", "amd", 304, 64),
    ],
)
def test_device_figures_are_the_vendors(
    name: str, vendor: str, sm_count: int, warp_size: int
) -> None:
    device = Target(name).device
    assert device is not None
    assert device.vendor == vendor
    assert device.sm_count == sm_count
    assert device.warp_size == warp_size
    assert device.max_threads_per_cta == 1024


def test_gpu_figures_are_plausible() -> None:
    for name in ("h100", "h200", "a100", "l40s", "b200", "mi300x"):
        device = Target(name).device
        assert device is not None
        peaks = device.peak_flops_per_s
        assert 1e13 <= peaks["fp32"] <= 2e14, name
        assert peaks["bf16_tensor"] > peaks["fp32"], name
        assert 5e11 <= device.memory_bandwidth_bytes_per_s <= 1e13, name
        assert 32 * 2**30 <= device.memory_bytes <= 256 * 2**30, name
        assert (
            48 * 1024 <= device.max_shared_memory_per_cta_bytes <= device.shared_memory_per_sm_bytes
        )
        assert device.shared_memory_per_sm_bytes <= 256 * 1024, name
        # a CTA of the largest size is whole warps; a warp is whole threads
        assert device.max_extent_within_parent["thread"] == device.warp_size
        assert (
            device.max_extent_within_parent["warp"] * device.warp_size == device.max_threads_per_cta
        )


def test_h100_figures() -> None:
    device = Target("h100").device
    assert device is not None
    assert device.memory_bandwidth_bytes_per_s == pytest.approx(3.35e12)
    assert device.peak_flops_per_s["bf16_tensor"] == pytest.approx(989.4e12, rel=0.01)
    assert device.l2_cache_bytes == 50 * 2**20
    assert device.memory_bytes == 80 * 2**30


def test_clusters_exist_from_sm_90_only() -> None:
    for name in ("h100", "h200", "b200"):
        device = Target(name).device
        assert device is not None
        assert "cluster" in device.topology_levels
        assert device.max_ctas_per_cluster == 16
    for name in ("a100", "l40s", "mi300x", "cpu"):
        device = Target(name).device
        assert device is not None
        assert "cluster" not in device.topology_levels
        assert device.max_ctas_per_cluster == 0


# ---------------------------------------------------------------------------------------------
# Topology


def test_topology_has_a_name_and_an_optional_extent() -> None:
    level = Topology("cta", 4)
    assert level.name == "cta"
    assert level.extent == 4
    assert Topology("warp").extent is None
    assert Topology("cta", 4) == Topology("cta", 4)
    assert Topology("cta", 4) != Topology("cta", 8)


@pytest.mark.parametrize("extent", [0, -1, True, 2.5, "4"])
def test_topology_extent_must_be_a_positive_int(extent: Any) -> None:
    with pytest.raises(ValueError, match=r"extent must be a positive int"):
        Topology("cta", extent)


@pytest.mark.parametrize("name", ["", "2cta", "c t a", None])
def test_topology_name_must_be_an_identifier(name: Any) -> None:
    with pytest.raises(ValueError, match=r"Topology name"):
        Topology(name, 2)


# ---------------------------------------------------------------------------------------------
# Target inheritance


def test_resolve_target_returns_the_modules_own_declaration() -> None:
    assert Module(name="m", target="a100").resolve_target() == Target("a100")


def test_resolve_target_returns_the_nearest_owners_declaration() -> None:
    leaf = Module(name="leaf", functions=[neg_fn()])
    mid = Module(name="mid", modules={"leaf": leaf})
    root = Module(name="root", modules={"mid": mid}, target="h100")
    assert leaf.resolve_target() == Target("h100")
    assert mid.resolve_target() == Target("h100")
    assert root.mid.leaf is leaf


def test_the_resolved_target_is_not_copied_onto_the_child() -> None:
    child = Module(name="c", functions=[neg_fn()])
    root = Module(name="r", modules={"c": child}, target="h100", topologies=LEVELS)
    assert child.target is None
    assert child.topologies is None
    assert child.resolve_target() == Target("h100")
    text = print_module(root)
    assert text.count("#tf.target") == 1
    assert text.count("topologies") == 1


def test_a_child_that_declares_a_target_is_refused_when_attached() -> None:
    child = Module(name="c", functions=[neg_fn()], target="h100")
    with pytest.raises(VerifyError, match=r"'c' declares target 'h100'; only the outermost module"):
        Module(name="r", modules={"c": child}, target="h100")
    with pytest.raises(VerifyError, match=r"only the outermost module"):
        Module(name="r", modules={"c": child})  # even under an owner that declares nothing


def test_resolving_with_no_declaration_anywhere_fails_clearly() -> None:
    child = Module(name="c", functions=[neg_fn()])
    root = Module(name="r", modules={"c": child})
    for module in (child, root, Module(name="alone")):
        with pytest.raises(VerifyError, match=r"has no target.*declare it on the root"):
            module.resolve_target()


def test_declaring_a_module_never_requires_a_target() -> None:
    m = Module(name="m", functions=[neg_fn()], topologies=(Topology("cta", 4),))
    assert m.target is None
    np.testing.assert_allclose(m.f(np.ones(4, np.float32)), -np.ones(4))


def test_a_module_reused_as_root_declares_its_target_only_in_that_role() -> None:
    child = Module(name="c", functions=[neg_fn("k")])
    root = Module(name="r", modules={"c": child}, target="h100", topologies=LEVELS)
    as_root = select(root, "c.k")
    assert as_root.target == Target("h100")
    assert child.target is None  # in its owned role it still declares nothing
    assert root.c.target is None


# ---------------------------------------------------------------------------------------------
# Topologies


def _tree(child_levels: tuple[Topology, ...] | None) -> Module:
    child = Module(name="c", functions=[neg_fn()], topologies=child_levels)
    mid = Module(name="mid", modules={"c": child})
    return Module(name="root", modules={"mid": mid}, target="h100", topologies=LEVELS)


def test_none_inherits_the_owners_hierarchy() -> None:
    root = _tree(None)
    assert root.mid.c.topologies is None
    assert root.mid.c.effective_topologies() == LEVELS
    assert root.mid.effective_topologies() == LEVELS
    assert root.effective_topologies() == LEVELS


def test_empty_declares_a_topology_free_domain() -> None:
    root = _tree(())
    assert root.mid.c.topologies == ()
    assert root.mid.c.effective_topologies() == ()
    assert root.mid.effective_topologies() == LEVELS


def test_a_declared_tuple_replaces_the_inherited_hierarchy_whole() -> None:
    root = _tree((Topology("warp", 2),))
    assert root.mid.c.effective_topologies() == (Topology("warp", 2),)


def test_no_declaration_anywhere_is_no_levels() -> None:
    assert Module(name="m").effective_topologies() == ()


def test_a_declared_tuple_must_not_repeat_a_level() -> None:
    with pytest.raises(VerifyError, match=r"topology level 'cta' is declared twice"):
        Module(name="m", topologies=(Topology("cta", 2), Topology("warp"), Topology("cta", 4)))


def test_topologies_must_hold_topology_values() -> None:
    with pytest.raises(TypeError, match=r"Topology"):
        Module(name="m", topologies=("cta",))  # type: ignore[arg-type]


def test_resolve_topology_by_exact_name() -> None:
    root = _tree(None)
    assert root.resolve_topology("cta") == Topology("cta", 4)
    assert root.mid.c.resolve_topology("warp") == Topology("warp", 4)


def test_resolve_topology_fails_naming_the_available_levels() -> None:
    root = _tree(None)
    with pytest.raises(VerifyError, match=r"'CTA'.*available: cluster, cta, warp"):
        root.mid.c.resolve_topology("CTA")
    with pytest.raises(VerifyError, match=r"'thread'.*available: cluster, cta, warp"):
        root.resolve_topology("thread")


def test_resolve_topology_in_a_topology_free_domain_fails() -> None:
    root = _tree(())
    with pytest.raises(VerifyError, match=r"'cta'.*available: none"):
        root.mid.c.resolve_topology("cta")


# ---------------------------------------------------------------------------------------------
# publish()


def test_publish_accepts_a_root_declaring_target_and_levels() -> None:
    m = Module(name="m", functions=[neg_fn()], target="h100", topologies=LEVELS)
    assert m.publish() is m
    assert Module(name="m", target="h100", topologies=()).publish() is not None
    assert Module(name="m", target="cuda", topologies=(Topology("anything", 3),)).publish()


def test_publish_requires_a_target() -> None:
    m = Module(name="m", functions=[neg_fn()], topologies=LEVELS)
    with pytest.raises(VerifyError, match=r"published as a root but declares no target"):
        m.publish()


def test_publish_requires_declared_levels() -> None:
    m = Module(name="m", functions=[neg_fn()], target="h100")
    with pytest.raises(VerifyError, match=r"declares no topology levels"):
        m.publish()


def test_an_owned_child_is_no_root_to_publish() -> None:
    child = Module(name="c", functions=[neg_fn()])
    Module(name="r", modules={"c": child}, target="h100", topologies=LEVELS)
    with pytest.raises(VerifyError, match=r"declares no target"):
        child.publish()


@pytest.mark.parametrize(
    ("target", "levels", "message"),
    [
        (
            "a100",
            (Topology("cluster", 2), Topology("cta", 4)),
            r"a100 \(sm_80\) has no 'cluster' level",
        ),
        ("l40s", (Topology("cluster", 2),), r"l40s \(sm_89\) has no 'cluster' level"),
        ("mi300x", (Topology("cluster", 2),), r"mi300x \(gfx942\) has no 'cluster' level"),
        (
            "h100",
            (Topology("cluster", 2), Topology("cta", 17)),
            r"at most 16 'cta' in one 'cluster', got 17",
        ),
        ("h100", (Topology("core"),), r"no 'core' level"),
        ("h100", (Topology("warp", 4), Topology("cta", 4)), r"'cta' cannot be inside 'warp'"),
        (
            "mi300x",
            (Topology("cta"), Topology("warp", 4), Topology("thread", 128)),
            r"at most 64 'thread'",
        ),
    ],
)
def test_publish_refuses_levels_the_device_cannot_have(
    target: str, levels: tuple[Topology, ...], message: str
) -> None:
    with pytest.raises(VerifyError, match=message):
        Module(name="m", functions=[neg_fn()], target=target, topologies=levels).publish()


def test_publish_accepts_the_device_limits() -> None:
    Module(
        name="m", target="h100", topologies=(Topology("cluster", 2), Topology("cta", 16))
    ).publish()
    Module(
        name="m", target="b200", topologies=(Topology("cluster", 16), Topology("cta", 8))
    ).publish()
    Module(
        name="m", target="a100", topologies=(Topology("cta", 108), Topology("warp", 32))
    ).publish()


# ---------------------------------------------------------------------------------------------
# Mesh: a tf.mesh region names one effective level


def test_mesh_is_exported_from_the_package() -> None:
    public = tilefoundry.Mesh
    x = Var("x", T4)
    mesh = public(topology="cta", body=lambda: ops.exp(x))
    assert mesh.type == T4
    f = Function(name="k", params=[x], body=mesh)
    m = Module(name="m", functions=[f], topologies=(Topology("cta", 4),))
    np.testing.assert_allclose(m.k(np.zeros(4, np.float32)), np.ones(4))


def test_a_mesh_naming_an_effective_level_is_accepted() -> None:
    m = Module(name="m", functions=[mesh_fn("warp")], target="h100", topologies=LEVELS)
    assert 'tf.mesh "warp"' in print_module(m)
    np.testing.assert_allclose(m.k(np.zeros(4, np.float32)), np.ones(4))


def test_a_mesh_naming_a_level_that_is_not_effective_is_refused() -> None:
    with pytest.raises(
        VerifyError, match=r"mesh names topology level 'thread'.*available: cluster, cta, warp"
    ):
        Module(name="m", functions=[mesh_fn("thread")], target="h100", topologies=LEVELS)


def test_a_mesh_in_a_topology_free_domain_is_refused() -> None:
    with pytest.raises(VerifyError, match=r"mesh names topology level 'cta'.*available: none"):
        Module(name="m", functions=[mesh_fn("cta")], topologies=())


def test_a_mesh_may_name_a_level_inherited_from_the_owner() -> None:
    child = Module(name="c", functions=[mesh_fn("cta")])  # declares nothing: constructed freely
    root = Module(name="r", modules={"c": child}, target="h100", topologies=LEVELS)
    np.testing.assert_allclose(root.c.k(np.zeros(4, np.float32)), np.ones(4))


def test_a_mesh_naming_a_level_the_owner_does_not_give_is_refused_when_attached() -> None:
    child = Module(name="c", functions=[mesh_fn("lane")])
    with pytest.raises(
        VerifyError, match=r"mesh names topology level 'lane'.*available: cluster, cta, warp"
    ):
        Module(name="r", modules={"c": child}, target="h100", topologies=LEVELS)


def test_a_mesh_under_a_replacing_declaration_sees_only_the_replacement() -> None:
    # the child's own declaration already decides: refused when built, or at the latest when attached
    with pytest.raises(VerifyError, match=r"'cta'.*available: warp"):
        child = Module(name="c", functions=[mesh_fn("cta")], topologies=(Topology("warp", 4),))
        Module(name="r", modules={"c": child}, target="h100", topologies=LEVELS)


def test_a_refused_mesh_leaves_the_function_usable() -> None:
    f = mesh_fn("cta")
    with pytest.raises(VerifyError, match="not an effective level"):
        Module(name="m", functions=[f], topologies=(Topology("warp"),))
    m = Module(name="m", functions=[f], topologies=(Topology("cta"),))
    assert m.lookup("k") is f
