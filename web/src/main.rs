//! The visualizer's entry point (built by Trunk into the page).

fn main() {
    fencepost_web::start();
}
