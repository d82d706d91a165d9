//! The browser entry point.

fn main() {
    console_error_panic_hook_lite();
    nocturne_app::mount();
}

/// Panics go to the console instead of vanishing.
fn console_error_panic_hook_lite() {
    std::panic::set_hook(Box::new(|info| web_sys::console::error_1(&info.to_string().into())));
}
