//! The grammar of the repeated-path stream as a compact file: [`Sequitur::encode`] writes
//! it, [`decode`] reads it back as a [`Grammar`] that expands to the same stream.
//!
//! The code is SEQUITUR's own "implicit" one (Nevill-Manning and Witten): the rules are
//! sent depth first from the start rule, each rule's body where the rule is first used, so
//! a rule needs no number until it is used again. Every symbol is one of
//!
//! - a terminal or a rule seen before, coded by its move-to-front rank among the terminals
//!   (rules) seen so far (a loop's rules come back soon after their last use);
//! - a new terminal (a repeated path: path id, trip count), coded by value;
//! - a new rule, coded by its body's length, its body following at once.
//!
//! Each choice and number goes through an adaptive binary range coder. Digram uniqueness
//! leaves no pair of symbols twice in the grammar, so a symbol's predecessor says little
//! about it; recency is what the model uses.
//!
//! Layout (little endian):
//!
//! ```text
//! magic "PKSEQ\0", version u16,
//! input length u64, terminals u64, rules u64 (the start rule included), symbols u64,
//! payload length u64, payload, CRC-32 u32 of everything before it
//! ```
//!
//! [`decode`] checks the magic, version, length and checksum, then every count and rank
//! against what was decoded so far: a damaged file is an error, never a panic.

use std::fmt;

use crate::isam::crc32;
use crate::level::Rep;
use crate::rangecoder::{BitTree, Decoder, Encoder, NumModel, Prob};
use crate::recency::Recency;
use crate::sequitur::{GSym, GrammarStats, Sequitur};

const MAGIC: &[u8; 6] = b"PKSEQ\0";
/// The format's version.
pub const VERSION: u16 = 1;
/// Bytes before the payload.
const HEADER: usize = 8 + 5 * 8;
/// A coded symbol costs at least two binary decisions (its kind), each at least
/// `-log2(1 - 2^-6)` bits at the coder's most skewed probability; a header claiming more
/// symbols per payload byte than this bound allows is corrupt (and is not allowed to size
/// the decoder's tables).
const MAX_SYMBOLS_PER_BYTE: usize = 256;

/// What a symbol is, as coded.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    SeenTerminal = 0,
    NewTerminal = 1,
    NewRule = 2,
    SeenRule = 3,
}

/// Terminals and rules are ranked apart (a rank among fewer symbols is cheaper).
const TERMS: usize = 0;
const RULES: usize = 1;

/// The adaptive models of the code, in the same state on both sides.
#[derive(Default)]
struct Models {
    /// The kind, in the context of where the symbol is (the start rule or another, see
    /// [`where_of`]) and of the previous symbol's kind (0 before the first).
    kind: [[BitTree<2>; 4]; 2],
    /// Ranks of terminals, of rules, by where the symbol is.
    rank: [[NumModel; 2]; 2],
    length: NumModel,
    /// Whether a new terminal's path id is the next one (one past the largest so far).
    next_id: Prob,
    id: NumModel,
    trips: NumModel,
}

/// A grammar read from a file: terminals and rule bodies, rule 0 the start rule and the
/// others numbered in order of first use.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Grammar {
    /// The distinct repeated paths, by terminal index.
    pub terminals: Vec<Rep>,
    /// The rule bodies.
    pub rules: Vec<Vec<GSym>>,
    /// Length of the stream the grammar expands to.
    pub input_len: u64,
}

/// Why a grammar file could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GrammarFileError {
    /// Shorter than its header and checksum, or than its payload length says.
    Truncated,
    /// Not a grammar file.
    BadMagic,
    /// A version this reader does not know.
    Version(u16),
    /// The checksum does not match: the file is damaged.
    Checksum,
    /// The checksum matched but the content is inconsistent (what is wrong).
    Corrupt(&'static str),
}

impl fmt::Display for GrammarFileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GrammarFileError::Truncated => write!(f, "grammar file truncated"),
            GrammarFileError::BadMagic => write!(f, "not a profkit grammar file"),
            GrammarFileError::Version(v) => {
                write!(f, "grammar file version {v} (this reader knows {VERSION})")
            }
            GrammarFileError::Checksum => write!(f, "grammar file damaged (checksum mismatch)"),
            GrammarFileError::Corrupt(what) => write!(f, "grammar file corrupt: {what}"),
        }
    }
}

impl std::error::Error for GrammarFileError {}

/// The model context of a symbol in the body on top of a stack of `depth` bodies: the
/// start rule (the part of the stream no rule repeats: its symbols are the program's
/// sequence of distinct loops) or a rule (a loop's body).
fn where_of(depth: usize) -> usize {
    usize::from(depth > 1)
}

/// Not yet introduced (encoder's symbol-to-item maps).
const NONE: u32 = u32::MAX;

impl Sequitur<Rep> {
    /// The grammar as a compact file (see the [module docs](crate::grammar_file)).
    pub fn encode(&self) -> Vec<u8> {
        let stats = self.stats();
        let ids = self.rule_ids();
        let mut rule_item = vec![NONE; ids.last().map_or(0, |&r| r as usize + 1)];
        let mut term_item = vec![NONE; stats.terminals];
        let mut recency = [0; 2].map(|_| Recency::with_uses(stats.symbols));
        let mut m = Models::default();
        let mut enc = Encoder::new();
        let mut next_id = 0u64;
        let mut prev = 0usize;
        let start = self.body(0).unwrap_or_default();
        m.length.encode(&mut enc, start.len() as u64);
        let mut stack = vec![(start, 0usize)];
        while let Some((body, at)) = stack.last_mut() {
            let Some(&sym) = body.get(*at) else {
                stack.pop();
                continue;
            };
            *at += 1;
            let (item, class) = match sym {
                GSym::Term(t) => (&mut term_item[t as usize], TERMS),
                GSym::Rule(r) => (&mut rule_item[r as usize], RULES),
            };
            let kind = match (*item != NONE, class) {
                (true, TERMS) => Kind::SeenTerminal,
                (true, _) => Kind::SeenRule,
                (false, TERMS) => Kind::NewTerminal,
                (false, _) => Kind::NewRule,
            };
            let at = where_of(stack.len());
            m.kind[at][prev].encode(&mut enc, kind as u32);
            prev = kind as usize;
            match sym {
                _ if matches!(kind, Kind::SeenTerminal | Kind::SeenRule) => {
                    let rank = recency[class].use_item(*item);
                    m.rank[at][class].encode(&mut enc, u64::from(rank));
                }
                GSym::Term(t) => {
                    *item = recency[class].introduce();
                    let rep = self.terminal(t).copied().unwrap_or_default();
                    let id = u64::from(rep.id);
                    enc.bit(&mut m.next_id, id != next_id);
                    if id != next_id {
                        m.id.encode(&mut enc, id);
                    }
                    next_id = next_id.max(id + 1);
                    m.trips.encode(&mut enc, rep.trips);
                }
                GSym::Rule(r) => {
                    *item = recency[class].introduce();
                    let body = self.body(r).unwrap_or_default();
                    m.length.encode(&mut enc, body.len() as u64);
                    stack.push((body, 0));
                }
            }
        }
        let payload = enc.finish();
        let mut out = Vec::with_capacity(HEADER + payload.len() + 4);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        for n in [
            stats.input_len,
            stats.terminals as u64,
            stats.rules as u64,
            stats.symbols as u64,
            payload.len() as u64,
        ] {
            out.extend_from_slice(&n.to_le_bytes());
        }
        out.extend_from_slice(&payload);
        let crc = crc32(&out);
        out.extend_from_slice(&crc.to_le_bytes());
        out
    }
}

fn u64_at(bytes: &[u8], at: usize) -> u64 {
    let mut b = [0u8; 8];
    b.copy_from_slice(&bytes[at..at + 8]);
    u64::from_le_bytes(b)
}

/// Reads a grammar file written by [`Sequitur::encode`].
pub fn decode(bytes: &[u8]) -> Result<Grammar, GrammarFileError> {
    use GrammarFileError::*;
    if bytes.len() < 6 || &bytes[..6] != MAGIC {
        return Err(if MAGIC.starts_with(&bytes[..bytes.len().min(6)]) {
            Truncated
        } else {
            BadMagic
        });
    }
    if bytes.len() < HEADER + 4 {
        return Err(Truncated);
    }
    let version = u16::from_le_bytes([bytes[6], bytes[7]]);
    if version != VERSION {
        return Err(Version(version));
    }
    let [input_len, terminals, rules, symbols, payload_len] =
        [0, 1, 2, 3, 4].map(|i| u64_at(bytes, 8 + 8 * i));
    let end = usize::try_from(payload_len)
        .ok()
        .and_then(|n| n.checked_add(HEADER))
        .filter(|&end| end + 4 <= bytes.len())
        .ok_or(Truncated)?;
    let mut crc = [0u8; 4];
    crc.copy_from_slice(&bytes[end..end + 4]);
    if crc32(&bytes[..end]) != u32::from_le_bytes(crc) {
        return Err(Checksum);
    }
    let payload = &bytes[HEADER..end];
    let symbols = usize::try_from(symbols)
        .ok()
        .filter(|&s| s <= payload.len().saturating_mul(MAX_SYMBOLS_PER_BYTE))
        .ok_or(Corrupt("more symbols than the payload can hold"))?;
    if terminals > symbols as u64 || rules > symbols as u64 + 1 {
        return Err(Corrupt("more terminals or rules than symbols"));
    }
    let mut dec = Decoder::new(payload).ok_or(Corrupt("payload does not start a code"))?;
    let grammar = decode_payload(&mut dec, symbols, input_len)?;
    if dec.overrun() {
        return Err(Corrupt("payload ends early"));
    }
    if grammar.terminals.len() as u64 != terminals || grammar.rules.len() as u64 != rules {
        return Err(Corrupt("terminal or rule count differs from the header"));
    }
    Ok(grammar)
}

/// A rule body's length, at most the `left` symbols still to come.
fn length(m: &mut Models, dec: &mut Decoder<'_>, left: usize) -> Result<usize, GrammarFileError> {
    m.length
        .decode(dec)
        .and_then(|n| usize::try_from(n).ok())
        .filter(|&n| n <= left)
        .ok_or(GrammarFileError::Corrupt(
            "a rule longer than the symbols left",
        ))
}

/// Decodes the symbols of a payload, exactly `symbols` of them.
fn decode_payload(
    dec: &mut Decoder<'_>,
    symbols: usize,
    input_len: u64,
) -> Result<Grammar, GrammarFileError> {
    use GrammarFileError::Corrupt;
    let mut m = Models::default();
    // Terminal i is item i of the terminals, rule r > 0 item r - 1 of the rules.
    let mut recency = [0; 2].map(|_| Recency::with_uses(symbols));
    let mut terminals = Vec::new();
    let mut left = symbols;
    let mut next_id = 0u64;
    let mut prev = 0usize;
    let start = length(&mut m, dec, left)?;
    let mut rules: Vec<Vec<GSym>> = vec![Vec::with_capacity(start)];
    // Rules being decoded (their bodies are incomplete) and the symbols each still needs.
    let mut open = vec![true];
    let mut stack = vec![(0usize, start)];
    while let Some((rule, need)) = stack.last_mut() {
        if *need == 0 {
            open[*rule] = false;
            stack.pop();
            continue;
        }
        *need -= 1;
        let rule = *rule;
        left = left
            .checked_sub(1)
            .ok_or(Corrupt("more symbols than the header says"))?;
        let at = where_of(stack.len());
        let kind = m.kind[at][prev].decode(dec);
        prev = kind as usize;
        let sym = match kind {
            k if k == Kind::SeenTerminal as u32 || k == Kind::SeenRule as u32 => {
                let class = if k == Kind::SeenTerminal as u32 {
                    TERMS
                } else {
                    RULES
                };
                let item = m.rank[at][class]
                    .decode(dec)
                    .and_then(|r| u32::try_from(r).ok())
                    .and_then(|r| recency[class].use_rank(r))
                    .ok_or(Corrupt("a rank beyond the symbols seen"))?;
                if class == TERMS {
                    GSym::Term(item)
                } else if open[item as usize + 1] {
                    return Err(Corrupt("a rule used inside its own body"));
                } else {
                    GSym::Rule(item + 1)
                }
            }
            k if k == Kind::NewTerminal as u32 => {
                let id = if dec.bit(&mut m.next_id) {
                    m.id.decode(dec)
                } else {
                    Some(next_id)
                };
                let id = id
                    .and_then(|i| u32::try_from(i).ok())
                    .ok_or(Corrupt("a path id beyond 32 bits"))?;
                next_id = next_id.max(u64::from(id) + 1);
                let trips = m.trips.decode(dec).ok_or(Corrupt("a bad trip count"))?;
                introduce(&mut recency[TERMS])?;
                terminals.push(Rep { id, trips });
                GSym::Term(terminals.len() as u32 - 1)
            }
            _ => {
                // A new rule (the kind's two bits leave no other value).
                let len = length(&mut m, dec, left)?;
                introduce(&mut recency[RULES])?;
                let sym = GSym::Rule(rules.len() as u32);
                rules.push(Vec::with_capacity(len));
                open.push(true);
                rules[rule].push(sym);
                stack.push((rules.len() - 1, len));
                continue;
            }
        };
        rules[rule].push(sym);
    }
    if left != 0 {
        return Err(Corrupt("fewer symbols than the header says"));
    }
    Ok(Grammar {
        terminals,
        rules,
        input_len,
    })
}

/// Introduces the next item of `recency`, if the header's symbol count leaves room.
fn introduce(recency: &mut Recency) -> Result<u32, GrammarFileError> {
    if recency.room() == 0 {
        return Err(GrammarFileError::Corrupt(
            "more symbols than the header says",
        ));
    }
    Ok(recency.introduce())
}

impl Grammar {
    /// Size statistics, as [`Sequitur::stats`] gives them for the grammar written.
    pub fn stats(&self) -> GrammarStats {
        GrammarStats {
            input_len: self.input_len,
            rules: self.rules.len(),
            symbols: self.rules.iter().map(Vec::len).sum(),
            terminals: self.terminals.len(),
        }
    }

    /// Expands the start rule: the stream the grammar was built from. An error if the
    /// expansion's length differs from the recorded input length (it stops as soon as it
    /// would exceed it).
    pub fn expand(&self) -> Result<Vec<Rep>, GrammarFileError> {
        let mut out = Vec::new();
        let mut stack = vec![(0usize, 0usize)];
        while let Some((rule, at)) = stack.last_mut() {
            let Some(&sym) = self.rules.get(*rule).and_then(|b| b.get(*at)) else {
                stack.pop();
                continue;
            };
            *at += 1;
            match sym {
                GSym::Term(t) => {
                    if out.len() as u64 >= self.input_len {
                        return Err(GrammarFileError::Corrupt("expands beyond its input length"));
                    }
                    let rep = self
                        .terminals
                        .get(t as usize)
                        .ok_or(GrammarFileError::Corrupt("an unknown terminal"))?;
                    out.push(*rep);
                }
                GSym::Rule(r) => {
                    // Rules refer only to rules decoded before them were completed, so the
                    // depth is bounded by the rule count; a built `Grammar` may still be
                    // cyclic.
                    if stack.len() > self.rules.len() {
                        return Err(GrammarFileError::Corrupt("a cyclic rule"));
                    }
                    stack.push((r as usize, 0));
                }
            }
        }
        if out.len() as u64 != self.input_len {
            return Err(GrammarFileError::Corrupt(
                "expands short of its input length",
            ));
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grammar_of(stream: &[Rep]) -> Sequitur<Rep> {
        let mut g = Sequitur::new();
        for &r in stream {
            assert!(g.push(r));
        }
        g
    }

    fn rep(id: u32, trips: u64) -> Rep {
        Rep { id, trips }
    }

    /// A loop-like stream: an outer loop around two inner loops whose trip counts vary.
    fn loops(n: usize) -> Vec<Rep> {
        (0..n)
            .flat_map(|i| [rep(0, 1), rep(1, 3 + (i % 3) as u64), rep(2, 7), rep(3, 1)])
            .collect()
    }

    #[test]
    fn round_trip_expands_to_the_stream() {
        for stream in [vec![], vec![rep(5, 1)], loops(1), loops(500)] {
            let g = grammar_of(&stream);
            let bytes = g.encode();
            let back = decode(&bytes).expect("decodes");
            assert_eq!(back.stats(), g.stats());
            assert_eq!(back.expand().expect("expands"), stream);
        }
    }

    #[test]
    fn a_loop_stream_codes_far_below_its_raw_size() {
        let stream = loops(5000);
        let bytes = grammar_of(&stream).encode();
        // 12 bytes per repeated path raw.
        assert!(
            bytes.len() * 200 < stream.len() * 12,
            "{} bytes",
            bytes.len()
        );
    }

    #[test]
    fn damage_is_an_error() {
        let bytes = grammar_of(&loops(50)).encode();
        for cut in 0..bytes.len() {
            assert!(decode(&bytes[..cut]).is_err(), "cut at {cut}");
        }
        for at in 0..bytes.len() {
            let mut bad = bytes.clone();
            bad[at] ^= 0x10;
            assert!(decode(&bad).is_err(), "flip at {at}");
        }
        assert_eq!(
            decode(b"not a grammar file at all, no"),
            Err(GrammarFileError::BadMagic)
        );
    }

    #[test]
    fn a_forged_checksum_still_cannot_panic() {
        // Payload bytes changed and the checksum recomputed: the decoder's own checks must
        // catch what the checksum no longer does.
        let bytes = grammar_of(&loops(50)).encode();
        for at in HEADER..bytes.len() - 4 {
            for flip in [0x01u8, 0x80, 0xFF] {
                let mut bad = bytes.clone();
                bad[at] ^= flip;
                let end = bad.len() - 4;
                let crc = crc32(&bad[..end]);
                bad[end..].copy_from_slice(&crc.to_le_bytes());
                if let Ok(g) = decode(&bad) {
                    let _ = g.expand();
                }
            }
        }
    }
}
