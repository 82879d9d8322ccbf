use netmeas_hdl::common::sync_ram::*;

#[test]
fn the_verilog_indexes_only_the_rows_it_has() {
    let v = sync_ram_verilog(49, 5, 3);
    assert!(v.contains("reg [48:0] mem [0:2];"));
    assert!(v.contains("read_data <= mem[read_address[1:0]];"));
    assert!(v.contains("mem[write_address[1:0]] <= write_data;"));
    assert!(v.contains("wire unused_high_address = |{read_address[4:2], write_address[4:2]};"));
    let full = sync_ram_verilog(322, 10, 1024);
    assert!(full.contains("reg [321:0] mem [0:1023];") && full.contains("mem[read_address];"));
    assert!(!full.contains("unused_high_address"));
    let one = sync_ram_verilog(10, 10, 1);
    assert!(one.contains("reg [9:0] mem [0:0];") && one.contains("mem[read_address[0:0]]"));
}
