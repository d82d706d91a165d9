use yrs::updates::decoder::Decode;
fn main() {
    let bytes = std::fs::read(std::env::args().nth(1).unwrap()).unwrap();
    let u = yrs::Update::decode_v1(&bytes).unwrap();
    println!("{u:?}");
}
