"""LeetCode's binary-tree lists, changed as trees so that they stay trees.

LeetCode writes a binary tree as a list in level order with None holes (``[1, None, 2, 3]``);
mutated as a plain list it would soon stop being one. So a tree argument (parameter ``root``, or
a statement about a binary tree and a list with None: see :mod:`.positions`) is decoded,
changed by :func:`tree_mutation` (a value, a swap of children, a leaf added or removed) or grown
by :func:`random_tree`, and encoded again; a binary search tree stays one (:func:`relabel_bst`).
"""

from __future__ import annotations

import random
from typing import Any

from pipeline.verify.testgen.call.shapes import Number


class Node:
    __slots__ = ("val", "left", "right")

    def __init__(self, val: Any):
        self.val, self.left, self.right = val, None, None


def decode_tree(values: list[Any]) -> Node | None:
    """LeetCode's level order: children of each non-None node in turn; a short list ends the tree."""
    if not values or values[0] is None:
        return None
    root = Node(values[0])
    queue, i, head = [root], 1, 0
    while head < len(queue) and i < len(values):
        node = queue[head]
        head += 1
        for side in ("left", "right"):
            if i < len(values):
                if values[i] is not None:
                    child = Node(values[i])
                    setattr(node, side, child)
                    queue.append(child)
                i += 1
    return root


def encode_tree(root: Node | None) -> list[Any]:
    if root is None:
        return []
    out, queue, head = [root.val], [root], 0
    while head < len(queue):
        node = queue[head]
        head += 1
        for child in (node.left, node.right):
            out.append(None if child is None else child.val)
            if child is not None:
                queue.append(child)
    while out and out[-1] is None:
        out.pop()
    return out


def tree_nodes(root: Node | None) -> list[Node]:
    out, queue, head = [], [root] if root else [], 0
    while head < len(queue):
        node = queue[head]
        head += 1
        out.append(node)
        queue.extend(c for c in (node.left, node.right) if c is not None)
    return out


def inorder_nodes(root: Node | None) -> list[Node]:
    out, stack, node = [], [], root
    while stack or node is not None:
        while node is not None:
            stack.append(node)
            node = node.left
        node = stack.pop()
        out.append(node)
        node = node.right
    return out


def is_bst(values: list[Any]) -> bool:
    try:
        order = [n.val for n in inorder_nodes(decode_tree(values))]
        return len(order) >= 2 and all(a < b for a, b in zip(order, order[1:]))
    except TypeError:
        return False


def relabel_bst(root: Node, rng: random.Random, lo: Number, hi: Number) -> bool:
    """Make the tree a BST: distinct values, assigned in order. False when the range is too small."""
    nodes = inorder_nodes(root)
    vals = [n.val for n in nodes]
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in vals):
        try:
            vals = sorted(set(vals))
        except TypeError:
            return False
        if len(vals) < len(nodes):
            return False
    else:
        lo, hi = int(lo), int(hi)
        if hi - lo + 1 < len(nodes):
            return False
        unique = sorted(set(v for v in vals if lo <= v <= hi))
        seen = set(unique)
        tries = 0
        while len(unique) < len(nodes) and tries < 50 * len(nodes):
            v = rng.randint(lo, hi)
            tries += 1
            if v not in seen:
                seen.add(v)
                unique.append(v)
        if len(unique) < len(nodes):
            return False
        vals = sorted(unique)
        if len(vals) > len(nodes):
            vals = sorted(rng.sample(vals, len(nodes)))
    for node, v in zip(nodes, vals):
        node.val = v
    return True


def tree_shapes(size: int) -> list[Node | None]:
    """Every binary tree of ``size`` nodes (values None), each of fresh nodes: the left subtree's
    size from 0 up, so the list runs from the right-leaning chain to the left-leaning one."""
    if size <= 0:
        return [None]
    out: list[Node | None] = []
    for left in range(size):
        for a in tree_shapes(left):
            for b in tree_shapes(size - 1 - left):
                root = Node(None)
                root.left, root.right = a, b
                out.append(root)
    return out


def random_tree(size: int, rng: random.Random, make_value) -> Node | None:
    if size <= 0:
        return None
    root = Node(make_value())
    free = [(root, "left"), (root, "right")]
    for _ in range(size - 1):
        i = rng.randrange(len(free))
        node, side = free[i]
        free[i] = free[-1]
        free.pop()
        child = Node(make_value())
        setattr(node, side, child)
        free += [(child, "left"), (child, "right")]
    return root


def tree_mutation(values: list[Any], rng: random.Random, make_value, *, min_nodes: int = 1,
                   max_nodes: int | None = None, bst_range: tuple[Number, Number] | None = None) -> tuple[list[Any], str] | None:
    """One mutation of a level-order tree list: (new list, label), or None when none applies."""
    root = decode_tree(values)
    if root is None:
        if max_nodes is not None and max_nodes < 1:
            return None
        return [make_value()], "mutation:tree_add_leaf"
    nodes = tree_nodes(root)
    ops = ["value", "swap"]
    if max_nodes is None or len(nodes) < max_nodes:
        ops += ["add", "add"]
    if len(nodes) > max(1, min_nodes):
        ops += ["remove"]
    op = rng.choice(ops)
    if op == "value":
        node = rng.choice(nodes)
        node.val = make_value(node.val)
        label = "mutation:tree_value"
    elif op == "swap":
        inner = [n for n in nodes if n.left is not None or n.right is not None] or nodes
        node = rng.choice(inner)
        node.left, node.right = node.right, node.left
        label = "mutation:tree_swap"
    elif op == "add":
        slots = [(n, s) for n in nodes for s in ("left", "right") if getattr(n, s) is None]
        node, side = rng.choice(slots)
        setattr(node, side, Node(make_value()))
        label = "mutation:tree_add_leaf"
    else:
        leaves = [(p, s) for p in nodes for s in ("left", "right")
                  if getattr(p, s) is not None and getattr(p, s).left is None and getattr(p, s).right is None]
        if not leaves:
            return None
        parent, side = rng.choice(leaves)
        setattr(parent, side, None)
        label = "mutation:tree_remove_leaf"
    if bst_range is not None and not relabel_bst(root, rng, *bst_range):
        return None
    return encode_tree(root), label
