//! `--shard I/N`: a deterministic split of a run's journeys for a CI matrix. Shards `1..=N`
//! together hold each journey exactly once. With the durations of earlier runs the split
//! is balanced (longest first onto the least-loaded shard); without them it deals the
//! journeys out in path order.
//!
//! The split is a function of the journeys, `N` and the bytes of `durations.json` alone
//! ([`SplitInput`], named with its SHA-256 on a shard's first line), and no sharded run
//! writes that file: shards run one after another in one directory, or on machines that
//! restored the same file, make the same split.

use std::fmt;
use std::str::FromStr;

use sha2::Digest as _;

use super::{Durations, JourneyId};

/// One shard of `total`, 1-based: `--shard 2/3` is `Shard { index: 2, total: 3 }`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    /// Which shard, from 1.
    pub index: u32,
    /// How many shards there are, at least 1.
    pub total: u32,
}

impl FromStr for Shard {
    type Err = String;

    /// `I/N` with `1 ≤ I ≤ N`.
    fn from_str(text: &str) -> Result<Shard, String> {
        let why = |reason: &str| format!("`{text}` is not a shard: {reason}");
        let (index, total) = text
            .split_once('/')
            .ok_or_else(|| why("write it I/N, e.g. 1/4"))?;
        let number = |part: &str, what: &str| -> Result<u32, String> {
            part.trim()
                .parse::<u32>()
                .map_err(|_| why(&format!("{what} `{part}` is not a whole number")))
        };
        let (index, total) = (number(index, "the index")?, number(total, "the count")?);
        if total == 0 {
            return Err(why("the count of shards must be 1 or more"));
        }
        if index == 0 || index > total {
            return Err(why(&format!(
                "the index must be between 1 and {total} (shards count from 1)"
            )));
        }
        Ok(Shard { index, total })
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.total)
    }
}

/// A SHA-256 digest: what names the input a shard was split by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Sha256(pub [u8; 32]);

impl Sha256 {
    /// The digest of `bytes`.
    pub fn of(bytes: &[u8]) -> Sha256 {
        Sha256(sha2::Sha256::digest(bytes).into())
    }

    /// Its first 8 hex digits, as a shard's first line shows it (what `sha256sum` prints
    /// starts with them).
    pub fn short(&self) -> String {
        self.to_string()[..8].to_string()
    }
}

impl fmt::Display for Sha256 {
    /// All 64 hex digits.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.iter().try_for_each(|b| write!(f, "{b:02x}"))
    }
}

/// What a split is made from beside the journeys: `durations.json` as one read found it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SplitInput {
    /// The SHA-256 of the file's bytes; `None` when there was no file.
    pub sha256: Option<Sha256>,
    /// The durations it holds; `None` when there was no file or it is not one waymark
    /// wrote (the split is then dealt out in path order).
    pub durations: Option<Durations>,
}

/// How a split was balanced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Balance {
    /// By the durations of earlier runs: greedy, longest first onto the least-loaded shard.
    Durations,
    /// Round-robin in path order: no durations were known for these journeys.
    RoundRobin,
}

/// The shard (1-based) of each journey in `ids` when split `total` ways, and how.
///
/// With durations known for any of the journeys, they are placed longest first (ties by
/// name, then path), each onto the shard with the least time so far (ties: the lowest
/// shard); a journey without a recorded duration counts as the mean of those with one.
/// Otherwise journey `k` in path order goes to shard `k mod total + 1`. The result does not
/// depend on the order of `ids`.
pub fn assign(ids: &[JourneyId], total: u32, durations: Option<&Durations>) -> (Vec<u32>, Balance) {
    let total = total.max(1);
    let mut shard_of = vec![0; ids.len()];
    let known: Vec<Option<u64>> = ids
        .iter()
        .map(|id| durations.and_then(|d| d.get(&id.name)))
        .collect();
    let recorded: Vec<u64> = known.iter().flatten().copied().collect();
    if recorded.is_empty() {
        let mut order: Vec<usize> = (0..ids.len()).collect();
        order.sort_by(|&a, &b| (&ids[a].path, &ids[a].name).cmp(&(&ids[b].path, &ids[b].name)));
        for (k, at) in order.into_iter().enumerate() {
            shard_of[at] = (k as u64 % u64::from(total)) as u32 + 1;
        }
        return (shard_of, Balance::RoundRobin);
    }
    let mean = recorded.iter().sum::<u64>() / recorded.len() as u64;
    let cost: Vec<u64> = known.iter().map(|d| d.unwrap_or(mean)).collect();
    let mut order: Vec<usize> = (0..ids.len()).collect();
    order.sort_by(|&a, &b| {
        cost[b]
            .cmp(&cost[a])
            .then_with(|| ids[a].name.cmp(&ids[b].name))
            .then_with(|| ids[a].path.cmp(&ids[b].path))
    });
    let mut load = vec![0u64; total as usize];
    for at in order {
        let lightest = (0..load.len())
            .min_by_key(|&s| (load[s], s))
            .unwrap_or_default();
        load[lightest] += cost[at];
        shard_of[at] = lightest as u32 + 1;
    }
    (shard_of, Balance::Durations)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::path::PathBuf;

    use super::*;

    fn ids(names: &[&str]) -> Vec<JourneyId> {
        names
            .iter()
            .map(|n| JourneyId {
                name: n.to_string(),
                path: PathBuf::from(format!("journeys/{n}.rhai")),
            })
            .collect()
    }

    fn durations(pairs: &[(&str, u64)]) -> Durations {
        Durations(
            pairs
                .iter()
                .map(|(n, ms)| (n.to_string(), *ms))
                .collect::<BTreeMap<_, _>>(),
        )
    }

    fn names_in(ids: &[JourneyId], shards: &[u32], shard: u32) -> Vec<String> {
        ids.iter()
            .zip(shards)
            .filter(|(_, s)| **s == shard)
            .map(|(id, _)| id.name.clone())
            .collect()
    }

    #[test]
    fn a_shard_is_i_of_n_counted_from_one() {
        assert_eq!("2/3".parse(), Ok(Shard { index: 2, total: 3 }));
        assert_eq!("1/1".parse(), Ok(Shard { index: 1, total: 1 }));
        assert_eq!(Shard { index: 2, total: 3 }.to_string(), "2/3");
        for bad in [
            "0/2", "3/2", "1/0", "0/0", "x", "1-2", "a/2", "1/b", "-1/2", "", "1/2/3",
        ] {
            let err = bad.parse::<Shard>().unwrap_err();
            assert!(err.contains(&format!("`{bad}`")), "{bad}: {err}");
        }
        assert!(
            "3/2"
                .parse::<Shard>()
                .unwrap_err()
                .contains("between 1 and 2")
        );
    }

    #[test]
    fn without_durations_journeys_are_dealt_out_in_path_order() {
        let ids = ids(&["e", "a", "d", "b", "c"]);
        let (shards, balance) = assign(&ids, 2, None);
        assert_eq!(balance, Balance::RoundRobin);
        assert_eq!(names_in(&ids, &shards, 1), ["e", "a", "c"]);
        assert_eq!(names_in(&ids, &shards, 2), ["d", "b"]);
    }

    #[test]
    fn durations_of_other_journeys_only_are_no_durations() {
        let ids = ids(&["a", "b", "c"]);
        let (_, balance) = assign(&ids, 2, Some(&durations(&[("gone", 900)])));
        assert_eq!(balance, Balance::RoundRobin);
    }

    #[test]
    fn with_durations_the_longest_go_first_onto_the_least_loaded_shard() {
        let ids = ids(&["a", "b", "c", "d", "e"]);
        let d = durations(&[
            ("a", 5000),
            ("b", 4000),
            ("c", 3000),
            ("d", 1000),
            ("e", 1000),
        ]);
        let (shards, balance) = assign(&ids, 2, Some(&d));
        assert_eq!(balance, Balance::Durations);
        // a→1 (5000), b→2 (4000), c→2 (7000), d→1 (6000), e→1 (7000)
        assert_eq!(names_in(&ids, &shards, 1), ["a", "d", "e"]);
        assert_eq!(names_in(&ids, &shards, 2), ["b", "c"]);
    }

    #[test]
    fn equal_durations_are_placed_by_name() {
        let ids = ids(&["c", "b", "a", "d"]);
        let d = durations(&[("a", 10), ("b", 10), ("c", 10), ("d", 10)]);
        let (shards, _) = assign(&ids, 3, Some(&d));
        // a→1, b→2, c→3, d→1 (all tied at 10: the lowest shard)
        assert_eq!(shards, [3, 2, 1, 1]);
    }

    #[test]
    fn a_journey_without_a_duration_counts_as_the_mean() {
        let ids = ids(&["long", "new", "short"]);
        let d = durations(&[("long", 3000), ("short", 1000)]);
        let (shards, _) = assign(&ids, 2, Some(&d));
        // long 3000 → 1; new (mean 2000) → 2; short 1000 → 2
        assert_eq!(shards, [1, 2, 2]);
    }

    #[test]
    fn the_split_does_not_depend_on_the_order_journeys_came_in() {
        let d = durations(&[("a", 7), ("b", 3), ("c", 3), ("x", 12)]);
        let forward = ids(&["a", "b", "c", "d", "x", "y"]);
        let mut backward = forward.clone();
        backward.reverse();
        for durations in [None, Some(&d)] {
            let (f, _) = assign(&forward, 3, durations);
            let (b, _) = assign(&backward, 3, durations);
            for shard in 1..=3 {
                let mut fb = names_in(&backward, &b, shard);
                fb.sort();
                assert_eq!(names_in(&forward, &f, shard), fb);
            }
        }
    }

    #[test]
    fn every_journey_lands_on_exactly_one_shard_whatever_the_count() {
        let names: Vec<String> = (0..23).map(|i| format!("j{i:02}")).collect();
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let ids = ids(&refs);
        let d = durations(&[("j03", 900), ("j07", 50), ("j11", 4000)]);
        for total in 1..=30 {
            for durations in [None, Some(&d)] {
                let (shards, _) = assign(&ids, total, durations);
                assert!(shards.iter().all(|s| (1..=total).contains(s)), "{shards:?}");
                let held: usize = (1..=total).map(|s| names_in(&ids, &shards, s).len()).sum();
                assert_eq!(held, ids.len());
            }
        }
    }

    #[test]
    fn round_robin_shards_differ_in_size_by_at_most_one() {
        let names: Vec<String> = (0..10).map(|i| format!("j{i}")).collect();
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let ids = ids(&refs);
        let (shards, _) = assign(&ids, 4, None);
        let sizes: Vec<usize> = (1..=4).map(|s| names_in(&ids, &shards, s).len()).collect();
        assert_eq!(sizes, [3, 3, 2, 2]);
    }

    #[test]
    fn a_sha256_shows_as_sha256sum_prints_it_and_shortens_to_eight_digits() {
        let empty = Sha256::of(b"");
        assert_eq!(
            empty.to_string(),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        assert_eq!(empty.short(), "e3b0c442");
    }
}
