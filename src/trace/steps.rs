//! What two runs' steps are, compared one to one: whether they are the same kind of step (the same
//! kernel at the same sizes, a read of the same size) and have the same results, and how a
//! buffer's bytes are read as elements of its OpenCL C type. The leaf that `compare`, `streams`
//! and `varying` share.

use super::record::{Arg, Step};

/// Whether two steps are the same kind of step (`shape_difference`).
pub fn same_shape(x: &Step, y: &Step) -> bool {
    shape_difference(x, y).is_none()
}

/// Whether two steps of the same shape have the same results, byte for byte.
pub fn same_results(x: &Step, y: &Step) -> bool {
    let same_arg = |p: &Arg, q: &Arg| match (p, q) {
        (Arg::Buffer(p), Arg::Buffer(q)) => p.data == q.data,
        (Arg::Scalar(p), Arg::Scalar(q)) => p == q,
        (Arg::Local(p), Arg::Local(q)) => p == q,
        _ => true,
    };
    match (x, y) {
        (Step::Launch(p), Step::Launch(q)) => p.args.iter().zip(&q.args).all(|(p, q)| same_arg(p, q)),
        (Step::Read(p), Step::Read(q)) => p.data == q.data,
        _ => false,
    }
}

/// Why two steps are not the same kind of step (a launch of another kernel or size, a read of
/// another size), if they are not.
pub fn shape_difference(x: &Step, y: &Step) -> Option<String> {
    match (x, y) {
        (Step::Launch(p), Step::Launch(q)) if p.kernel != q.kernel => Some(format!("kernel {} against {}", p.kernel, q.kernel)),
        (Step::Launch(p), Step::Launch(q)) if p.sizes != q.sizes || p.args.len() != q.args.len() => {
            Some(format!("kernel {} launched with other sizes or arguments", p.kernel))
        }
        (Step::Read(p), Step::Read(q)) if p.data.len() != q.data.len() => Some("a host read of another size".to_string()),
        (Step::Launch(p), Step::Read(_)) => Some(format!("kernel {} against a host read", p.kernel)),
        (Step::Read(_), Step::Launch(q)) => Some(format!("a host read against kernel {}", q.kernel)),
        _ => None,
    }
}

/// How a buffer's bytes are read, from its OpenCL C type (`float4*` is read as floats).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Element {
    F32,
    F64,
    Signed(usize),
    Unsigned(usize),
}

impl Element {
    pub fn of(type_name: &str) -> Element {
        let base = type_name.trim_end_matches('*').trim().trim_end_matches(|c: char| c.is_ascii_digit());
        match base {
            "float" => Element::F32,
            "double" => Element::F64,
            "char" => Element::Signed(1),
            "short" => Element::Signed(2),
            "int" => Element::Signed(4),
            "long" => Element::Signed(8),
            "ushort" | "half" => Element::Unsigned(2),
            "uint" | "unsigned int" => Element::Unsigned(4),
            "ulong" | "size_t" => Element::Unsigned(8),
            // uchar, bool, structs and what the host read without a type: bytes.
            _ => Element::Unsigned(1),
        }
    }

    pub fn width(self) -> usize {
        match self {
            Element::F32 => 4,
            Element::F64 => 8,
            Element::Signed(n) | Element::Unsigned(n) => n,
        }
    }

    fn bits(bytes: &[u8]) -> u64 {
        bytes.iter().rev().fold(0u64, |acc, &b| (acc << 8) | u64::from(b))
    }

    pub fn same(self, x: &[u8], y: &[u8], tolerance: u64) -> bool {
        if x == y {
            return true;
        }
        if tolerance == 0 || x.len() != self.width() || y.len() != self.width() {
            return false;
        }
        let ordered = |bits: u64, sign: u64| -> i128 {
            if bits & sign != 0 {
                -((bits & !sign) as i128)
            } else {
                bits as i128
            }
        };
        let (x, y) = (Self::bits(x), Self::bits(y));
        match self {
            Element::F32 if !f32::from_bits(x as u32).is_nan() && !f32::from_bits(y as u32).is_nan() => {
                (ordered(x, 1 << 31) - ordered(y, 1 << 31)).unsigned_abs() <= u128::from(tolerance)
            }
            Element::F64 if !f64::from_bits(x).is_nan() && !f64::from_bits(y).is_nan() => {
                (ordered(x, 1 << 63) - ordered(y, 1 << 63)).unsigned_abs() <= u128::from(tolerance)
            }
            _ => false,
        }
    }

    pub fn show(self, bytes: &[u8]) -> String {
        let bits = Self::bits(bytes);
        match self {
            Element::F32 => format!("{:?}", f32::from_bits(bits as u32)),
            Element::F64 => format!("{:?}", f64::from_bits(bits)),
            Element::Signed(n) => {
                let shift = 64 - 8 * n as u32;
                format!("{}", ((bits << shift) as i64) >> shift)
            }
            Element::Unsigned(_) => format!("{bits}"),
        }
    }
}
