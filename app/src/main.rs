//! The browser entry point.

fn main() {
    console_error_panic_hook_lite();
    register_service_worker();
    nocturne_app::mount();
}

/// Lets the app load with no network after the first visit (www/sw.js).
fn register_service_worker() {
    let Some(window) = web_sys::window() else { return };
    if !window.location().protocol().is_ok_and(|p| p.starts_with("http")) {
        return;
    }
    let _ = window.navigator().service_worker().register("/sw.js");
}

/// Panics go to the console instead of vanishing.
fn console_error_panic_hook_lite() {
    std::panic::set_hook(Box::new(|info| web_sys::console::error_1(&info.to_string().into())));
}
