<?php
/**
 * Plugin Name:       rtac — grounded AI customer service
 * Plugin URI:        https://github.com/rtac/rtac
 * Description:       A chat assistant that answers visitors only from what your business has said: your pinned price list, opening hours and contacts, and the pages of this site.
 * Version:           0.1.0
 * Requires at least: 6.1
 * Requires PHP:      8.1
 * Author:            rtac
 * License:           GPL-2.0-or-later
 * License URI:       https://www.gnu.org/licenses/gpl-2.0.html
 * Text Domain:       rtac
 * Domain Path:       /languages
 *
 * @package rtac
 */

defined( 'ABSPATH' ) || exit;

define( 'RTAC_VERSION', '0.1.0' );
define( 'RTAC_FILE', __FILE__ );
define( 'RTAC_DIR', __DIR__ . '/' );

// Checked before any class is loaded: the classes use PHP 8.1 syntax and would
// fatal on an older PHP instead of explaining themselves.
if ( version_compare( PHP_VERSION, '8.1', '<' ) ) {
	add_action(
		'admin_notices',
		static function () {
			echo '<div class="notice notice-error"><p>' . esc_html__( 'rtac needs PHP 8.1 or newer. The plugin is inactive until PHP is upgraded.', 'rtac' ) . '</p></div>';
		}
	);
	return;
}

// Rtac_Foo_Bar lives in includes/class-rtac-foo-bar.php; tests can load any class
// (Rtac_CLI included) without booting the rest of the plugin.
spl_autoload_register(
	static function ( $class_name ) {
		if ( 0 !== strpos( $class_name, 'Rtac_' ) ) {
			return;
		}
		$file = RTAC_DIR . 'includes/class-' . strtolower( str_replace( '_', '-', $class_name ) ) . '.php';
		if ( is_readable( $file ) ) {
			require_once $file;
		}
	}
);

/**
 * The plugin instance: rtac()->settings(), rtac()->sync(), rtac()->client(), ...
 */
function rtac(): Rtac_Plugin {
	return Rtac_Plugin::instance();
}

register_activation_hook( __FILE__, array( 'Rtac_Plugin', 'activate' ) );
register_deactivation_hook( __FILE__, array( 'Rtac_Plugin', 'deactivate' ) );

rtac()->init_hooks();
