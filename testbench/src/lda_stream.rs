//! Whole measurement intervals through Verilated LDA cores: the sender's and
//! the receiver's packet streams each drive their own instance of the exported
//! core, one packet per clock, on two threads; after the stream the core flips
//! its epoch and the frozen copy is read out row by row into a synopsis
//! (Kompella et al. §V: read-out of the second copy while the first counts).

use crate::driver::Driver;
use crate::models::{LdaDefault, LdaSingle, LdaSmall, LdaTsRam};
use crate::{CoreRtl, LdaRtl, RtlRunCycles, both_ends};
use netmeas_sim::lda::{LDA_REG_BANK_LZ, LdaConfig, LdaInputs, LdaPacket, LdaPair, LdaReadout, LdaSynopsis};
use netmeas_sim::traffic::Trace;

/// Whether model config `built` runs `cfg`: same key width, geometry and hash
/// seed (baked into the netlist); the bank thresholds are registers and are
/// written at run time, and where the timestamp waits (`ts_in_ram`) does not
/// change what the core computes.
fn runs(built: &LdaConfig, cfg: &LdaConfig) -> bool {
    built.key_bits == cfg.key_bits && built.banks == cfg.banks && built.rows == cfg.rows && built.seed == cfg.seed
}

/// The configs the Verilated LDA models were built from (any thresholds run on them).
pub fn rtl_lda_configs() -> Vec<LdaConfig> {
    vec![LdaDefault::config(), LdaSingle::config(), LdaSmall::config(), LdaTsRam::config()]
}

/// One epoch of a fresh Verilated core `M` fed `stream` (key, ns timestamp) at
/// one packet per clock; returns the synopsis read out of the frozen copy and
/// the cycles taken.
pub fn rtl_synopsis<M: LdaRtl>(
    cfg: &LdaConfig,
    stream: impl Iterator<Item = (u128, u64)>,
) -> Result<(LdaSynopsis, u64), String> {
    let built = M::config();
    if !runs(&built, cfg) {
        return Err(format!("{} was built for another LDA geometry or hash seed", M::NAME));
    }
    let mut d = Driver::<M>::new();
    let idle = LdaInputs { ro_ready: true, ..Default::default() };
    d.reset(&LdaInputs { reset: true, ..idle }, &idle, |o| o.ready)?;
    for (j, (&k, &k0)) in cfg.bank_prob_log2.iter().zip(&built.bank_prob_log2).enumerate() {
        if k != k0 {
            d.step(&LdaInputs { csr_we: true, csr_addr: LDA_REG_BANK_LZ + j as u32, csr_wdata: k, ..idle });
        }
    }
    let packets = stream.map(|(key, ts)| LdaInputs { valid: true, pkt: LdaPacket { key, ts, class: 0 }, ..idle });
    d.feed(packets, |o| Ok(o.ready))?;
    d.until(&LdaInputs { flip: true, ..idle }, 0, "flip not taken", |o| Ok(o.flip_ready))?;
    let mut readout = LdaReadout::new(cfg);
    let mut synopsis = None;
    d.until(&idle, cfg.total_rows() as u64, "read-out incomplete", |o| {
        synopsis = readout.take(o).map_err(|e| format!("{}: {e}", M::NAME))?;
        Ok(synopsis.is_some())
    })?;
    Ok((synopsis.expect("the read-out ended with a synopsis"), d.cycles()))
}

fn pair_on<M: LdaRtl>(cfg: &LdaConfig, trace: &Trace) -> Result<(LdaPair, RtlRunCycles), String> {
    let ((sender, receiver), cycles) =
        both_ends(|| rtl_synopsis::<M>(cfg, trace.sender()), || rtl_synopsis::<M>(cfg, trace.receiver()))?;
    Ok((LdaPair { sender, receiver }, cycles))
}

/// Checks that a Verilated core runs `cfg` (see [`rtl_lda_configs`]), with
/// an error that lists what was built otherwise.
pub fn check_rtl_config(cfg: &LdaConfig) -> Result<(), String> {
    cfg.validate().map_err(|e| e.to_string())?;
    if rtl_lda_configs().iter().any(|b| runs(b, cfg)) {
        return Ok(());
    }
    let built: Vec<String> = rtl_lda_configs()
        .iter()
        .map(|c| format!("{}-bit key, {} x {} rows, seed {:#x}", c.key_bits, c.banks, c.rows, c.seed))
        .collect();
    Err(format!(
        "no Verilated LDA has this key width, geometry and hash seed (thresholds may differ); built: {}",
        built.join("; ")
    ))
}

/// Sender and receiver synopses of `trace` from two Verilated cores running in
/// parallel. `cfg` must pass [`check_rtl_config`].
pub fn rtl_pair(cfg: &LdaConfig, trace: &Trace) -> Result<(LdaPair, RtlRunCycles), String> {
    check_rtl_config(cfg)?;
    if runs(&LdaDefault::config(), cfg) {
        pair_on::<LdaDefault>(cfg, trace)
    } else if runs(&LdaSingle::config(), cfg) {
        pair_on::<LdaSingle>(cfg, trace)
    } else if runs(&LdaTsRam::config(), cfg) {
        pair_on::<LdaTsRam>(cfg, trace)
    } else {
        pair_on::<LdaSmall>(cfg, trace)
    }
}
