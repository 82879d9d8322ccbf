//! The record a point's FIFO carries and how a core's inputs take its fields
//! (`netmeas_hdl::point::binding`).

use netmeas_hdl::point::binding::{PointBinding, RECORD_BITS, RecordField, RecordSource};

#[test]
fn the_record_packs_to_274_bits_match_first() {
    assert_eq!(RecordField::ALL.iter().map(|f| f.bits()).sum::<u32>(), RECORD_BITS);
    assert_eq!(RecordField::Match.lsb(), 0);
    assert_eq!(RecordField::Role.lsb(), 32);
    assert_eq!(RecordField::Ts.lsb() + 64, RECORD_BITS);
    assert_eq!(PointBinding::expression(RecordSource::Field(RecordField::Ts), 40, "r"), "r[249:210]");
    assert_eq!(PointBinding::expression(RecordSource::Field(RecordField::Class), 10, "r"), "{2'd0, r[41:34]}");
    assert_eq!(PointBinding::expression(RecordSource::RoleIs(2), 1, "r"), "(r[33:32] == 2'd2)");
}
