//! Loop and map identities: numbering and lookup (the rule is "Identities" in the crate
//! docs).
//!
//! [`settle`] is the one place ids are handed out. Stages build loops and maps with
//! [`LoopId::NEW`] / [`MapId::NEW`], copy statements freely, and settle the function body
//! once before returning it: in pre-order, the first occurrence of an id keeps it, and every
//! `NEW` or repeated id gets the next number above the largest in use. A body built only of
//! `NEW` loops is thus numbered `L0, L1, ...` in program order, and settling a valid body
//! changes nothing.

use crate::{Block, LoopId, MapId, Stmt, StmtKind};
use std::collections::HashSet;

/// Gives every `NEW` and every repeated loop and map id of `body` a fresh one (see the module
/// docs). Idempotent; deterministic (depends only on the statements, in program order).
pub fn settle(body: &mut Block) {
    let (mut next_loop, mut next_map) = (0u32, 0u32);
    crate::walk_stmts(body, &mut |s| match &s.kind {
        StmtKind::Loop(l) if !l.id.is_new() => next_loop = next_loop.max(l.id.0 + 1),
        StmtKind::While(w) if !w.id.is_new() => next_loop = next_loop.max(w.id.0 + 1),
        StmtKind::Map(m) if !m.id.is_new() => next_map = next_map.max(m.id.0 + 1),
        _ => {}
    });
    let mut n = Numbering { next_loop, next_map, loops: HashSet::new(), maps: HashSet::new() };
    n.block(body);
}

/// Numbers every loop and map of `body` afresh, in program order from 0, as a frontend's
/// [`settle`] of an all-`NEW` body does (for builders that wrap or splice valid bodies).
pub fn renumber(body: &mut Block) {
    fn forget(b: &mut Block) {
        for s in b {
            match &mut s.kind {
                StmtKind::Loop(l) => l.id = LoopId::NEW,
                StmtKind::While(w) => w.id = LoopId::NEW,
                StmtKind::Map(m) => m.id = MapId::NEW,
                _ => {}
            }
            s.blocks_mut().into_iter().for_each(forget);
        }
    }
    forget(body);
    settle(body);
}

struct Numbering {
    next_loop: u32,
    next_map: u32,
    loops: HashSet<LoopId>,
    maps: HashSet<MapId>,
}

impl Numbering {
    fn block(&mut self, b: &mut Block) {
        for s in b {
            self.stmt(s);
        }
    }

    fn stmt(&mut self, s: &mut Stmt) {
        match &mut s.kind {
            StmtKind::Loop(l) => l.id = self.loop_id(l.id),
            StmtKind::While(w) => w.id = self.loop_id(w.id),
            StmtKind::Map(m) => m.id = self.map_id(m.id),
            _ => {}
        }
        for b in s.blocks_mut() {
            self.block(b);
        }
    }

    /// `id` if it is the first of its number, else the next free one.
    fn loop_id(&mut self, id: LoopId) -> LoopId {
        if !id.is_new() && self.loops.insert(id) {
            return id;
        }
        let fresh = LoopId(self.next_loop);
        self.next_loop += 1;
        self.loops.insert(fresh);
        fresh
    }

    fn map_id(&mut self, id: MapId) -> MapId {
        if !id.is_new() && self.maps.insert(id) {
            return id;
        }
        let fresh = MapId(self.next_map);
        self.next_map += 1;
        self.maps.insert(fresh);
        fresh
    }
}

/// The loops of `body` with the statement that holds each, in program order.
pub fn loops(body: &Block) -> Vec<(&Stmt, &crate::Loop)> {
    let mut out = Vec::new();
    fn go<'a>(b: &'a Block, out: &mut Vec<(&'a Stmt, &'a crate::Loop)>) {
        for s in b {
            if let StmtKind::Loop(l) = &s.kind {
                out.push((s, l));
            }
            s.blocks().into_iter().for_each(|c| go(c, out));
        }
    }
    go(body, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::*;

    fn lp(id: LoopId, body: Block) -> Stmt {
        let l = Loop { id, var: VarId(0), start: Expr::int(0), stop: Expr::int(2), step: Expr::int(1), body };
        Stmt::new(StmtKind::Loop(l), Span::NONE)
    }

    fn ids(b: &Block) -> Vec<u32> {
        loops(b).iter().map(|(_, l)| l.id.0).collect()
    }

    #[test]
    fn new_loops_are_numbered_in_program_order() {
        let mut b = vec![lp(LoopId::NEW, vec![lp(LoopId::NEW, vec![])]), lp(LoopId::NEW, vec![])];
        settle(&mut b);
        assert_eq!(ids(&b), [0, 1, 2]);
        let before = b.clone();
        settle(&mut b);
        assert_eq!(b, before, "settling a settled body changes nothing");
    }

    #[test]
    fn the_first_occurrence_keeps_its_id_and_copies_get_fresh_ones() {
        let mut b = vec![lp(LoopId(4), vec![lp(LoopId(1), vec![])]), lp(LoopId::NEW, vec![]), lp(LoopId(4), vec![])];
        settle(&mut b);
        assert_eq!(ids(&b), [4, 1, 5, 6]);
    }
}
