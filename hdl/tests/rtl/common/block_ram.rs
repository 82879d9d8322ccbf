use netmeas_hdl::common::block_ram::*;

#[test]
fn slices_cover_the_depth_and_select_after_their_registers() {
    let v = block_ram_verilog(144, 16, 2500, 0, false, false);
    for s in 0..5 {
        assert!(v.contains(&format!("reg [143:0] q{s};")), "slice {s}");
    }
    assert!(!v.contains("mem5"));
    assert!(v.contains("reg [143:0] mem4 [0:451];"));
    assert!(v.contains("read_data = (q0 & {144{hot2[0]}}) | (q1 & {144{hot2[1]}}) | (q2 & {144{hot2[2]}}) | (q3 & {144{hot2[3]}}) | (q4 & {144{hot2[4]}});"));
    assert!(v.contains("hot1[4] <= sel0 == 3'd4;") && v.contains("hot2 <= hot1;"));
    assert!(v.contains("q4 <= rd4;"));
    assert!(v.contains("sel0 <= read_address[11:9];"));
    assert!(v.contains("if (read_address[11:9] == 3'd4) begin\n      ra4 <= read_address[8:0];"));
    assert!(v.contains("rd4 <= mem4[ra4];"));
    assert!(v.contains("we4 <= write_enable && write_address[11:9] == 3'd4;"));
    assert!(v.contains("mem4[wa[8:0]] <= wd;"));
    // Two extra stages: two registers between each block and its q, the one-hot select
    // two clocks longer.
    let deep = block_ram_verilog(144, 16, 2500, 2, false, false);
    assert!(deep.contains("x1_4 <= rd4;") && deep.contains("x2_4 <= x1_4;") && deep.contains("q4 <= x2_4;"));
    assert!(deep.contains("hot4 <= hot3;") && deep.contains("(q4 & {144{hot4[4]}})"));
    assert!(!deep.contains("q4 <= rd4;") && !deep.contains("hot5"));
    let one = block_ram_verilog(72, 10, 512, 0, false, false);
    assert!(one.contains("read_data <= rd;") && !one.contains("sel1"));
    assert!(one.contains("ra <= read_address[8:0];") && one.contains("rd <= mem[ra];"));
    assert!(one.contains("wa <= write_address[8:0];") && one.contains("mem[wa[8:0]] <= wd;"));
    let one_deep = block_ram_verilog(72, 10, 512, 1, false, false);
    assert!(one_deep.contains("x1 <= rd;") && one_deep.contains("read_data <= x1;"));
}

#[test]
fn on_ecp5_the_register_behind_each_slice_is_the_blocks_output_register() {
    // Without extra stages the first register behind slice s is q{s}; with them, x1_{s}.
    for (extra, first) in [(0, "q"), (2, "x1_")] {
        let v = block_ram_verilog(144, 16, 2500, extra, false, false);
        assert_eq!(v.matches("`ifdef NETMEAS_ECP5").count(), 5, "one per slice");
        // 144 bits: four 36-bit blocks per slice, each with both output registers on.
        assert_eq!(v.matches("DP16KD #(").count(), 20);
        assert_eq!(v.matches(".REGMODE_A(\"OUTREG\"), .REGMODE_B(\"OUTREG\")").count(), 20);
        assert!(v.contains(&format!("wire [143:0] {first}4;")) && v.contains(&format!("reg [143:0] {first}4;")));
        // The behavioural branch loads the same register from the block's read register.
        assert!(v.contains(&format!("rd4 <= mem4[ra4];\n   {first}4 <= rd4;")));
        // Block 3 of slice 4: bits 108..143, the row on AD[13:5], the byte enables on ADA[3:0].
        assert!(
            v.contains("block4_3 (")
                && v.contains(".DIA0(wd[108])")
                && v.contains(".DOB17({first}4[143])".replace("{first}", first).as_str())
        );
        assert!(
            v.contains(".ADA0(we4)")
                && v.contains(".ADA13(wa[8])")
                && v.contains(".ADB5(ra4[0])")
                && v.contains(".ADB4(1'b0)")
        );
        // Declared before the always block that reads it.
        assert!(
            v.find(&format!("wire [143:0] {first}0;")).unwrap()
                < v.find("always @(posedge clock) begin\n   sel0").unwrap()
        );
    }
    // A 40-bit word: the second block's upper 32 bits are tied off and left open.
    let one = block_ram_verilog(40, 9, 300, 0, false, false);
    assert!(
        one.contains("wire [39:0] dout;\nalways @(*) read_data = dout;")
            && one.contains("rd <= mem[ra];\n   read_data <= rd;")
    );
    assert!(!one.contains(".DIA4(wd[40])") && one.contains(".DIA4(1'b0)") && one.contains(".DOA4()"));
    // Small memories stay distributed RAM: no primitive.
    assert!(!block_ram_verilog(100, 4, 11, 0, false, false).contains("DP16KD"));
}

#[test]
fn one_read_address_register_feeds_every_slice_without_an_enable() {
    let v = block_ram_verilog(64, 10, 1000, 0, true, false);
    // One 9-bit register loaded every clock; no per-slice register, no slice-decoded enable.
    assert!(v.contains("reg [8:0] ra;") && v.contains("   ra <= read_address[8:0];"));
    assert!(!v.contains("ra0") && !v.contains("ra1") && !v.contains("if (read_address"));
    // Both slices read it; the short second slice (488 rows) its low nine bits all the same.
    assert!(v.contains("rd0 <= mem0[ra];") && v.contains("rd1 <= mem1[ra];"));
    assert!(v.contains(".ADB5(ra[0])") && v.contains(".ADB13(ra[8])"));
    // The slice select and the write side are those of the per-slice form.
    assert!(
        v.contains("sel0 <= read_address[9:9];") && v.contains("we1 <= write_enable && write_address[9:9] == 1'd1;")
    );
    assert!(v.contains("read_data = (q0 & {64{hot2[0]}}) | (q1 & {64{hot2[1]}});"));
    // A slice of fewer rows than the register spans reads its low bits, and only the
    // write side has unused high bits.
    let short = block_ram_verilog(64, 10, 600, 0, true, false);
    assert!(short.contains("rd1 <= mem1[ra[6:0]];") && short.contains(".ADB5(ra[0])"));
    assert!(short.contains("wire unused_slice1_rows = |{write_address[8:7]};"));
    let per_slice = block_ram_verilog(64, 10, 600, 0, false, false);
    assert!(per_slice.contains("wire unused_slice1_rows = |{read_address[8:7], write_address[8:7]};"));
}

#[test]
fn second_read_select_has_its_own_kept_one_hot_register() {
    // One extra stage: the last one-hot register is hot3; the copy's is loaded from hot2 in a kept process.
    let v = block_ram_verilog(64, 10, 1024, 1, true, true);
    assert!(
        v.contains("reg [1:0] hot3_copy;")
            && v.contains("(* keep *)\nalways @(posedge clock) begin\n   hot3_copy <= hot2;\nend")
    );
    assert!(v.contains("read_data = (q0 & {64{hot3[0]}}) | (q1 & {64{hot3[1]}});"));
    assert!(v.contains("read_data_copy = (q0 & {64{hot3_copy[0]}}) | (q1 & {64{hot3_copy[1]}});"));
    // Without it, the copy is the word itself and no register is added.
    let plain = block_ram_verilog(64, 10, 1024, 1, true, false);
    assert!(
        plain.contains("read_data_copy = read_data;") && !plain.contains("hot3_copy") && !plain.contains("(* keep *)")
    );
    // One slice has no select: the copy is the word.
    assert!(block_ram_verilog(72, 10, 512, 1, false, true).contains("read_data_copy = read_data;"));
}
