//! TIFF LZW decoding (MSB-first codes of 9 to 12 bits, the code width growing one code early, as
//! libtiff writes them).
//!
//! The whole chunk is decoded into one buffer, so every string of the table is already in the
//! output: an entry is only where its first copy starts and how long it is, and decoding a code is
//! a copy from earlier in the buffer (a fixed 16-byte copy for the short strings that dominate).
//! This is several times faster than a general streaming decoder that rebuilds each string from
//! a prefix chain.

/// Why a stream could not be decoded.
#[derive(Debug)]
pub(crate) enum LzwError {
    /// The stream decodes to more bytes than the chunk holds.
    TooMuch,
    /// A code that is not in the table.
    Invalid(&'static str),
}

const CLEAR: u16 = 256;
const END: u16 = 257;
const FIRST: usize = 258;
const MAX_CODES: usize = 4096;

/// Reads MSB-first codes; bits below the valid ones are either zero or the stream's next bits.
struct Bits<'a> {
    input: &'a [u8],
    pos: usize,
    buf: u64,
    count: u32,
}

impl Bits<'_> {
    /// The next `width`-bit code, `None` at the end of the input.
    #[inline(always)]
    fn next(&mut self, width: u32) -> Option<u16> {
        if self.count < width {
            if let Some(b) = self.input.get(self.pos..self.pos + 8) {
                let mut a = [0u8; 8];
                a.copy_from_slice(b);
                self.buf |= u64::from_be_bytes(a) >> self.count;
                let bytes = (63 - self.count) >> 3;
                self.pos += bytes as usize;
                self.count += bytes * 8;
            } else {
                while self.count <= 56 {
                    let Some(&b) = self.input.get(self.pos) else { break };
                    self.buf |= (b as u64) << (56 - self.count);
                    self.pos += 1;
                    self.count += 8;
                }
                if self.count < width {
                    return None;
                }
            }
        }
        let code = (self.buf >> (64 - width)) as u16;
        self.buf <<= width;
        self.count -= width;
        Some(code)
    }
}

/// Decodes `input` into at most `expected` bytes. A stream that ends without an end code still
/// yields its data; one that would write past `expected` is refused.
pub(crate) fn decode(input: &[u8], expected: usize) -> Result<Vec<u8>, LzwError> {
    if u32::try_from(expected).is_err() {
        // Entries hold 32-bit positions; chunks are far smaller under any sensible limit.
        return Err(LzwError::Invalid("chunk larger than 4 GiB"));
    }
    let mut out = vec![0u8; expected];
    let mut bits = Bits { input, pos: 0, buf: 0, count: 0 };
    // Where each entry's string starts in `out`, and its length; codes below 256 are literals.
    let mut start = vec![0u32; MAX_CODES];
    let mut len = vec![0u32; MAX_CODES];
    let mut next = FIRST;
    let mut width = 9u32;
    // The previous code's string (start, length), none right after a clear code.
    let mut prev: Option<(usize, usize)> = None;
    let mut pos = 0usize;
    while let Some(code) = bits.next(width) {
        let c = code as usize;
        let (s, n) = if code < CLEAR {
            if pos >= expected {
                return Err(LzwError::TooMuch);
            }
            out[pos] = code as u8;
            (pos, 1)
        } else if code == CLEAR {
            next = FIRST;
            width = 9;
            prev = None;
            continue;
        } else if code == END {
            break;
        } else if c < next {
            let (from, n) = (start[c] as usize, len[c] as usize);
            if pos + n > expected {
                return Err(LzwError::TooMuch);
            }
            copy_string(&mut out, from, pos, n);
            (pos, n)
        } else if c == next {
            // The string being defined: the previous one and its own first byte.
            let Some((ps, pn)) = prev else { return Err(LzwError::Invalid("code not yet defined after a clear code")) };
            if pos + pn + 1 > expected {
                return Err(LzwError::TooMuch);
            }
            copy_string(&mut out, ps, pos, pn);
            out[pos + pn] = out[ps];
            (pos, pn + 1)
        } else {
            return Err(LzwError::Invalid("code past the end of the table"));
        };
        if let Some((ps, pn)) = prev {
            if next < MAX_CODES {
                // The previous string and this one's first byte, which follows it in `out`.
                start[next] = ps as u32;
                len[next] = (pn + 1) as u32;
                next += 1;
                if next + 1 >= 1 << width && width < 12 {
                    width += 1;
                }
            }
        }
        prev = Some((s, n));
        pos += n;
    }
    out.truncate(pos);
    Ok(out)
}

/// Copies `n` bytes from `from` to `to` (`from + n <= to`) within `out`.
#[inline(always)]
fn copy_string(out: &mut [u8], from: usize, to: usize, n: usize) {
    if n <= 16 && to + 16 <= out.len() {
        // A fixed-size copy compiles to two moves. It may read past the string (bytes at `to` and
        // on, which it then overwrites): only the first `n` bytes count, the rest is rewritten
        // by the strings that follow or cut off at the end.
        out.copy_within(from..from + 16, to);
    } else {
        out.copy_within(from..from + n, to);
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn encode(data: &[u8]) -> Vec<u8> {
        weezl::encode::Encoder::with_tiff_size_switch(weezl::BitOrder::Msb, 8).encode(data).unwrap()
    }

    fn reference(input: &[u8], expected: usize) -> Vec<u8> {
        let mut d = weezl::decode::Decoder::with_tiff_size_switch(weezl::BitOrder::Msb, 8);
        let mut out = d.decode(input).unwrap();
        out.truncate(expected);
        out
    }

    /// A xorshift generator, so that the inputs are the same on every run.
    fn noise(n: usize, seed: u64, alphabet: u8) -> Vec<u8> {
        let mut s = seed;
        (0..n)
            .map(|_| {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                (s % alphabet as u64) as u8
            })
            .collect()
    }

    #[test]
    fn decodes_what_a_reference_encoder_writes() {
        let mut cases = vec![Vec::new(), vec![7u8], vec![0u8; 100_000], (0..=255u8).cycle().take(70_000).collect()];
        for (i, alphabet) in [2u8, 4, 16, 255].into_iter().enumerate() {
            cases.push(noise(50_000 + i * 7_919, i as u64 + 1, alphabet));
        }
        // Runs and noise mixed: long strings next to short ones, and table resets.
        let mut mixed = Vec::new();
        for k in 0..40 {
            mixed.extend(std::iter::repeat_n(k as u8, k * 37));
            mixed.extend(noise(3_000, k as u64 + 100, 9));
        }
        cases.push(mixed);
        for data in cases {
            let enc = encode(&data);
            assert_eq!(decode(&enc, data.len()).unwrap(), data);
            assert_eq!(decode(&enc, data.len()).unwrap(), reference(&enc, data.len()));
        }
    }

    #[test]
    fn refuses_more_than_expected_and_stops_at_a_truncated_stream() {
        let data = noise(10_000, 9, 5);
        let enc = encode(&data);
        assert!(matches!(decode(&enc, data.len() - 1), Err(LzwError::TooMuch)));
        assert!(matches!(decode(&enc, 10), Err(LzwError::TooMuch)));
        // More room than the data: the data, no error.
        assert_eq!(decode(&enc, data.len() + 100).unwrap(), data);
        // A stream cut short yields a prefix of the data.
        let cut = decode(&enc[..enc.len() / 2], data.len()).unwrap();
        assert!(!cut.is_empty() && cut.len() < data.len());
        assert_eq!(cut[..], data[..cut.len()]);
    }

    #[test]
    fn refuses_codes_that_are_not_in_the_table() {
        // 9-bit codes: a literal, then code 300 (the table has only reached 258).
        let mut bits = 0u32;
        bits |= 65 << 23;
        bits |= 300 << 14;
        assert!(matches!(decode(&bits.to_be_bytes(), 100), Err(LzwError::Invalid(_))));
        // Right after a clear code, the code being defined has no previous string.
        let mut bits = 0u32;
        bits |= 256 << 23;
        bits |= 258 << 14;
        assert!(matches!(decode(&bits.to_be_bytes(), 100), Err(LzwError::Invalid(_))));
    }
}
