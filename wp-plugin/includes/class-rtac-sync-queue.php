<?php
/**
 * Syncs that failed, waiting for WP-Cron: the option `rtac_sync_queue`, a
 * map post ID => {post_id, op, source, attempts}.
 *
 * `source` is kept because a post deleted for good can no longer tell us its
 * post type, and the sidecar's DELETE needs it.
 *
 * @package rtac
 */

defined( 'ABSPATH' ) || exit;

final class Rtac_Sync_Queue {

	/** After this many failed retries an item is dropped (e.g. the sidecar keeps refusing it with a 400). */
	const MAX_ATTEMPTS = 10;

	/** @return array<int, array{post_id:int, op:string, source:string, attempts:int}> */
	public function all(): array {
		$queue = get_option( Rtac_Registry::OPTION_SYNC_QUEUE, array() );
		return is_array( $queue ) ? $queue : array();
	}

	public function count(): int {
		return count( $this->all() );
	}

	/**
	 * Queues a post (op 'upsert' or 'delete'); a later op for the same post
	 * replaces the earlier one, and its failures keep counting.
	 */
	public function add( int $post_id, string $op, string $source ): void {
		$queue             = $this->all();
		$attempts          = (int) ( $queue[ $post_id ]['attempts'] ?? 0 );
		$queue[ $post_id ] = array(
			'post_id'  => $post_id,
			'op'       => 'delete' === $op ? 'delete' : 'upsert',
			'source'   => $source,
			'attempts' => $attempts + 1,
		);
		$queue             = array_filter(
			$queue,
			static function ( $item ) {
				return (int) $item['attempts'] <= self::MAX_ATTEMPTS;
			}
		);
		$this->save( $queue );
	}

	/** @param int[] $post_ids */
	public function remove( array $post_ids ): void {
		$queue  = $this->all();
		$before = count( $queue );
		foreach ( $post_ids as $id ) {
			unset( $queue[ (int) $id ] );
		}
		if ( count( $queue ) !== $before ) {
			$this->save( $queue );
		}
	}

	public function clear(): void {
		delete_option( Rtac_Registry::OPTION_SYNC_QUEUE );
	}

	private function save( array $queue ): void {
		if ( ! $queue ) {
			$this->clear();
			return;
		}
		// Not autoloaded: it is read by cron and the CLI, never on a page view.
		if ( false === get_option( Rtac_Registry::OPTION_SYNC_QUEUE, false ) ) {
			add_option( Rtac_Registry::OPTION_SYNC_QUEUE, $queue, '', 'no' );
		} else {
			update_option( Rtac_Registry::OPTION_SYNC_QUEUE, $queue, false );
		}
	}
}
