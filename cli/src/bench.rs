//! `nocturne bench`: performance figures (printed, never asserted).

pub fn run(_max: usize) {
    println!("bench: not yet measured");
}
