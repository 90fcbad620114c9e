<?php
/**
 * Counters that many PHP workers can increment at once without losing a hit:
 * the rate limits and the daily lead cap.
 *
 * A transient is read, changed and written back, so two requests at the same
 * moment both read 5 and both write 6. Here every increment is one atomic
 * operation: wp_cache_incr() when a persistent object cache (Redis, Memcached)
 * is present, otherwise a single INSERT … ON DUPLICATE KEY UPDATE on the
 * plugin's own small table {prefix}rtac_counters, which hands back the value
 * it wrote (LAST_INSERT_ID(expr)), so the count a request acts on is its own.
 *
 * Counter names are keyed hashes (Rtac_Hash): neither an IP address nor a
 * visitor id appears in the table or the cache.
 *
 * @package rtac
 */

defined( 'ABSPATH' ) || exit;

final class Rtac_Counter {

	const CACHE_GROUP = 'rtac_counters';

	/** One in this many increments also removes expired rows. */
	const PURGE_EVERY = 50;

	public static function table(): string {
		global $wpdb;
		return $wpdb->prefix . Rtac_Registry::TABLE_COUNTERS;
	}

	/**
	 * Adds one to a counter and returns its new value.
	 *
	 * @param string $name A hashed name (64 hex digits), unique per window.
	 * @param int    $ttl  Seconds the counter must live.
	 * @param int    $now  Current time.
	 * @return int The count including this increment; 0 when it could not be counted.
	 */
	public static function incr( string $name, int $ttl, ?int $now = null ): int {
		$now = $now ?? time();
		if ( wp_using_ext_object_cache() ) {
			return self::incr_cache( $name, $ttl );
		}
		$n = self::incr_table( $name, $now + $ttl );
		if ( $n <= 0 && self::install() ) {
			$n = self::incr_table( $name, $now + $ttl ); // The table was missing (a site that never ran the upgrade).
		}
		if ( 0 === wp_rand( 0, self::PURGE_EVERY - 1 ) ) {
			self::purge( $now );
		}
		return max( 0, $n );
	}

	private static function incr_cache( string $name, int $ttl ): int {
		// add() is a no-op when the counter exists; incr() is atomic in every persistent cache.
		wp_cache_add( $name, 0, self::CACHE_GROUP, $ttl );
		$n = wp_cache_incr( $name, 1, self::CACHE_GROUP );
		if ( false === $n ) {
			// Evicted between add() and incr(): start again at one.
			$n = wp_cache_add( $name, 1, self::CACHE_GROUP, $ttl ) ? 1 : wp_cache_incr( $name, 1, self::CACHE_GROUP );
		}
		return (int) $n;
	}

	private static function incr_table( string $name, int $expires_at ): int {
		global $wpdb;
		$table    = self::table();
		$suppress = $wpdb->suppress_errors( true );
		// One statement: the row is created at 1 or incremented, and LAST_INSERT_ID(expr)
		// makes the value this statement wrote the connection's insert id.
		$ok = $wpdb->query( // phpcs:ignore WordPress.DB.DirectDatabaseQuery
			$wpdb->prepare(
				"INSERT INTO `{$table}` (name, expires_at, hits) VALUES (%s, %d, LAST_INSERT_ID(1)) ON DUPLICATE KEY UPDATE hits = LAST_INSERT_ID(hits + 1)", // phpcs:ignore WordPress.DB.PreparedSQL.InterpolatedNotPrepared -- our own table
				$name,
				$expires_at
			)
		);
		$wpdb->suppress_errors( $suppress );
		return false === $ok ? 0 : (int) $wpdb->insert_id;
	}

	/** Removes expired counters. */
	public static function purge( ?int $now = null ): void {
		global $wpdb;
		$table    = self::table();
		$suppress = $wpdb->suppress_errors( true );
		$wpdb->query( $wpdb->prepare( "DELETE FROM `{$table}` WHERE expires_at < %d", $now ?? time() ) ); // phpcs:ignore WordPress.DB.DirectDatabaseQuery, WordPress.DB.PreparedSQL.InterpolatedNotPrepared -- our own table
		$wpdb->suppress_errors( $suppress );
	}

	/** Forgets every counter (tests, and the limits page after a change). */
	public static function clear(): void {
		global $wpdb;
		$table    = self::table();
		$suppress = $wpdb->suppress_errors( true );
		$wpdb->query( "DELETE FROM `{$table}`" ); // phpcs:ignore WordPress.DB.DirectDatabaseQuery, WordPress.DB.PreparedSQL.InterpolatedNotPrepared -- our own table
		$wpdb->suppress_errors( $suppress );
	}

	/**
	 * Creates the table (or brings it to this version's shape): on activation,
	 * as an upgrade step, and when an increment finds it missing.
	 *
	 * @return bool Whether the table exists afterwards.
	 */
	public static function install(): bool {
		global $wpdb;
		require_once ABSPATH . 'wp-admin/includes/upgrade.php';
		$table = self::table();
		// dbDelta's format: two spaces after PRIMARY KEY, one column per line.
		dbDelta(
			"CREATE TABLE {$table} (
  name char(64) NOT NULL,
  expires_at int(10) unsigned NOT NULL,
  hits int(10) unsigned NOT NULL DEFAULT 0,
  PRIMARY KEY  (name),
  KEY expires_at (expires_at)
) {$wpdb->get_charset_collate()};"
		);
		return $table === $wpdb->get_var( $wpdb->prepare( 'SHOW TABLES LIKE %s', $wpdb->esc_like( $table ) ) ); // phpcs:ignore WordPress.DB.DirectDatabaseQuery
	}
}
