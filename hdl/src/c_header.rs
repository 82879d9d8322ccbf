//! C headers of the register maps (`netmeas export`, `netmeas export
//! --wrap`): for each register `<TOP>_<NAME>_ADDR`, `_BITS`, `_MASK` and
//! `_RESET`, from the same map as `csr.json`.

/// One register as the header gives it.
#[derive(Clone, Debug)]
pub struct CRegister<'a> {
    /// Its name in the map.
    pub name: &'a str,
    /// What it is (one line).
    pub doc: &'a str,
    /// Its address (word or byte address: the header's preamble says which).
    pub addr: u64,
    /// Its width in bits (1–64).
    pub bits: u32,
    /// Its reset value.
    pub reset: u64,
}

/// `s` as a C identifier part: upper case, other characters as `_`.
pub fn ident(s: &str) -> String {
    s.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_uppercase() } else { '_' }).collect()
}

/// The header of `top`'s map: `preamble` (C comment lines) after the title,
/// then each register's defines.
pub fn c_header<'a>(top: &str, preamble: &str, regs: impl IntoIterator<Item = CRegister<'a>>) -> String {
    let prefix = ident(top);
    let mut h = format!("/* {top}: register map (netmeas export; the same map as {top}.csr.json). */\n{preamble}");
    h.push_str(&format!("#ifndef {prefix}_H\n#define {prefix}_H\n\n"));
    for r in regs {
        let n = format!("{prefix}_{}", ident(r.name));
        let mask = if r.bits >= 64 { u64::MAX } else { (1u64 << r.bits) - 1 };
        h.push_str(&format!("/* {}: {} */\n", r.name, r.doc.replace("*/", "* /")));
        h.push_str(&format!("#define {n}_ADDR 0x{:x}u\n", r.addr));
        h.push_str(&format!("#define {n}_BITS {}u\n", r.bits));
        h.push_str(&format!("#define {n}_MASK 0x{mask:x}ull\n"));
        h.push_str(&format!("#define {n}_RESET 0x{:x}ull\n\n", r.reset));
    }
    h.push_str(&format!("#endif /* {prefix}_H */\n"));
    h
}
