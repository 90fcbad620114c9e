<?php
/**
 * Deletes everything rtac stored, as listed by Rtac_Registry: options,
 * knowledge-base entries, leads, their meta, user meta, transients, the
 * plugin's own tables and cron events. Runs when the plugin is deleted from wp-admin (not on deactivation).
 *
 * @package rtac
 */

defined( 'WP_UNINSTALL_PLUGIN' ) || exit;

require_once __DIR__ . '/includes/class-rtac-registry.php';

/** Removes the plugin's data from the current site. */
function rtac_uninstall_site(): void {
	global $wpdb;

	foreach ( Rtac_Registry::options() as $option ) {
		delete_option( $option );
	}

	foreach ( Rtac_Registry::post_types() as $post_type ) {
		// Post types are not registered during uninstall, so query the table directly.
		$ids = $wpdb->get_col( $wpdb->prepare( "SELECT ID FROM {$wpdb->posts} WHERE post_type = %s", $post_type ) ); // phpcs:ignore WordPress.DB.DirectDatabaseQuery
		foreach ( $ids as $id ) {
			wp_delete_post( (int) $id, true );
		}
	}
	foreach ( Rtac_Registry::post_meta() as $keys ) {
		foreach ( $keys as $key ) {
			delete_post_meta_by_key( $key );
		}
	}
	foreach ( Rtac_Registry::user_meta() as $key ) {
		delete_metadata( 'user', 0, $key, '', true );
	}

	foreach ( Rtac_Registry::transient_prefixes() as $prefix ) {
		foreach ( array( '_transient_', '_transient_timeout_' ) as $kind ) {
			$wpdb->query( $wpdb->prepare( "DELETE FROM {$wpdb->options} WHERE option_name LIKE %s", $wpdb->esc_like( $kind . $prefix ) . '%' ) ); // phpcs:ignore WordPress.DB.DirectDatabaseQuery
		}
	}
	// Transients in a persistent object cache are not in wp_options; they expire on their own.

	foreach ( Rtac_Registry::tables() as $table ) {
		$wpdb->query( "DROP TABLE IF EXISTS `{$wpdb->prefix}{$table}`" ); // phpcs:ignore WordPress.DB.DirectDatabaseQuery, WordPress.DB.PreparedSQL.InterpolatedNotPrepared, WordPress.DB.DirectDatabaseQuery.SchemaChange -- the plugin's own table
	}

	foreach ( wp_roles()->role_objects as $role ) {
		foreach ( Rtac_Registry::capabilities() as $cap ) {
			if ( $role->has_cap( $cap ) ) {
				$role->remove_cap( $cap );
			}
		}
	}

	foreach ( Rtac_Registry::cron_hooks() as $hook ) {
		wp_clear_scheduled_hook( $hook );
	}
}

if ( is_multisite() ) {
	foreach ( get_sites(
		array(
			'fields' => 'ids',
			'number' => 0,
		)
	) as $rtac_site_id ) {
		switch_to_blog( (int) $rtac_site_id );
		rtac_uninstall_site();
		restore_current_blog();
	}
} else {
	rtac_uninstall_site();
}
