use netmeas_testbench::models::*;
use netmeas_testbench::*;

#[test]
fn smoke() {
    let st = cosim_counter_bank::<CbDefault>(CbStimulus::default(), 1, 200_000).unwrap();
    println!("{st:?}");
    let st = cosim_counter_bank::<CbSmall>(CbStimulus::default(), 1, 200_000).unwrap();
    println!("{st:?}");
    cosim_h3::<H3Wide>(40000, 1, 10000).unwrap();
    cosim_h3::<H3Row>(40000, 1, 10000).unwrap();
}
