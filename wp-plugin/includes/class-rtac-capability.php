<?php
/**
 * The capability that manages the plugin: its settings, the unanswered
 * report, leads, re-indexing and the dashboard widget. Every check of it
 * names MANAGE, so moving the plugin to another capability is one change.
 *
 * It is WordPress's own and the plugin never grants it. The capabilities the
 * plugin grants (reading the conversation log) are in Rtac_Registry, which
 * uninstall.php removes from every role.
 *
 * @package rtac
 */

defined( 'ABSPATH' ) || exit;

final class Rtac_Capability {

	const MANAGE = 'manage_options';

	public static function can_manage(): bool {
		return current_user_can( self::MANAGE );
	}

	/** Stops a request from a user who may not manage the plugin. */
	public static function require_manage(): void {
		if ( ! self::can_manage() ) {
			wp_die( esc_html__( 'Sorry, you are not allowed to do that.', 'rtac' ), '', array( 'response' => 403 ) );
		}
	}
}
