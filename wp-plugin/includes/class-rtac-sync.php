<?php
/**
 * Keeps the sidecar's copy of the site's content current.
 *
 * Post hooks only collect IDs; the sending happens once at `shutdown`, so a
 * save that fires transition_post_status, save_post and meta updates costs
 * one request, made after the post (and its meta) is complete. A failed send
 * is queued and retried by WP-Cron.
 *
 * @package rtac
 */

defined( 'ABSPATH' ) || exit;

final class Rtac_Sync {

	const BATCH   = 20;
	const TIMEOUT = 15;

	private Rtac_Settings $settings;
	private Rtac_Sync_Queue $queue;
	private ?Rtac_Client $client;

	/**
	 * Collected during the request: blog ID => post ID => post type. Kept per
	 * site: on a multisite network a request may save posts of another site
	 * (switch_to_blog), and each is sent from its own site.
	 *
	 * @var array<int, array<int, string>>
	 */
	private array $pending = array();

	public function __construct( Rtac_Settings $settings, Rtac_Sync_Queue $queue, ?Rtac_Client $client = null ) {
		$this->settings = $settings;
		$this->queue    = $queue;
		$this->client   = $client;
	}

	public function queue(): Rtac_Sync_Queue {
		return $this->queue;
	}

	/** @return int[] IDs of this site waiting for the shutdown flush. */
	public function pending(): array {
		return array_keys( $this->pending[ get_current_blog_id() ] ?? array() );
	}

	/* ---- hook callbacks: collect only ---- */

	public function on_transition_post_status( $new_status, $old_status, $post ): void {
		// Only a post that is, or was, published can be in the sidecar.
		if ( $post instanceof WP_Post && ( 'publish' === $new_status || 'publish' === $old_status ) ) {
			$this->mark( $post );
		}
	}

	public function on_save_post( $post_id, $post = null ): void {
		if ( $post instanceof WP_Post && 'publish' === $post->post_status ) {
			$this->mark( $post );
		}
	}

	public function on_trashed_post( $post_id ): void {
		$post = get_post( (int) $post_id );
		if ( $post ) {
			$this->mark( $post );
		}
	}

	public function on_before_delete_post( $post_id ): void {
		$post = get_post( (int) $post_id );
		// Drafts were never sent; everything else may have been.
		if ( $post && ! in_array( $post->post_status, array( 'auto-draft', 'draft', 'pending', 'inherit' ), true ) ) {
			$this->mark( $post );
		}
	}

	private function mark( WP_Post $post ): void {
		if ( wp_is_post_revision( $post ) || wp_is_post_autosave( $post ) || ! Rtac_Document::is_synced_type( $post->post_type ) ) {
			return;
		}
		$this->pending[ get_current_blog_id() ][ (int) $post->ID ] = $post->post_type;
	}

	/* ---- sending ---- */

	/**
	 * shutdown: sends what this request changed.
	 *
	 * @return array{upserted:int[], deleted:int[], failed:array<int,string>}
	 */
	public function flush(): array {
		$all           = $this->pending;
		$this->pending = array();
		$result        = self::empty_result();
		foreach ( $all as $blog_id => $pending ) {
			$switched = is_multisite() && get_current_blog_id() !== (int) $blog_id && switch_to_blog( (int) $blog_id );
			try {
				if ( $this->settings->is_configured() ) {
					$sent = $this->send( $pending );
					$this->queue->remove( array_merge( $sent['upserted'], $sent['deleted'] ) );
					$this->enqueue_failures( $sent['failed'], $pending );
					$result['upserted'] = array_merge( $result['upserted'], $sent['upserted'] );
					$result['deleted']  = array_merge( $result['deleted'], $sent['deleted'] );
					$result['failed']  += $sent['failed'];
				}
			} finally {
				if ( $switched ) {
					restore_current_blog();
				}
			}
		}
		return $result;
	}

	/**
	 * WP-Cron (`rtac_sync_retry`) and `wp rtac sync-queue`: retries the queue.
	 *
	 * @return array{upserted:int[], deleted:int[], failed:array<int,string>}
	 */
	public function retry(): array {
		$items = $this->queue->all();
		if ( ! $items || ! $this->settings->is_configured() ) {
			return self::empty_result();
		}
		$sources = array();
		foreach ( $items as $item ) {
			$sources[ (int) $item['post_id'] ] = (string) $item['source'];
		}
		$result = $this->send( $sources );
		$this->queue->remove( array_merge( $result['upserted'], $result['deleted'] ) );
		$this->enqueue_failures( $result['failed'], $sources );
		return $result;
	}

	/**
	 * Decides each post's operation from its state now (not from what the
	 * hook saw: a post published then trashed in one request is a delete),
	 * then sends upserts in batches and deletes one by one.
	 *
	 * @param array<int, string> $sources post ID => post type (used when the post is gone).
	 * @return array{upserted:int[], deleted:int[], failed:array<int,string>}
	 */
	public function send( array $sources ): array {
		$result  = self::empty_result();
		$upserts = array();
		foreach ( $sources as $post_id => $source ) {
			$post = get_post( (int) $post_id );
			try {
				if ( $post && Rtac_Document::is_public( $post ) ) {
					$upserts[ (int) $post_id ] = Rtac_Document::payload( $post );
					continue;
				}
			} catch ( Throwable $e ) {
				// A filter of the page broke while rendering: nothing is sent now, the retry tries again.
				$result['failed'][ (int) $post_id ] = 'upsert';
				continue;
			}
			$source = $post ? $post->post_type : (string) $source;
			if ( $this->delete( $source, Rtac_Document::source_id( (int) $post_id ) ) ) {
				$result['deleted'][] = (int) $post_id;
			} else {
				$result['failed'][ (int) $post_id ] = 'delete';
			}
		}
		foreach ( array_chunk( $upserts, self::BATCH, true ) as $batch ) {
			if ( $this->upsert( array_values( $batch ) ) ) {
				$result['upserted'] = array_merge( $result['upserted'], array_keys( $batch ) );
			} else {
				foreach ( array_keys( $batch ) as $id ) {
					$result['failed'][ $id ] = 'upsert';
				}
			}
		}
		return $result;
	}

	/** PUT /v1/documents. */
	public function upsert( array $documents ): bool {
		if ( ! $documents ) {
			return true;
		}
		$res = $this->client()->request( 'PUT', '/v1/documents', array( 'documents' => $documents ), array( 'timeout' => self::TIMEOUT ) );
		return null === $res['error'];
	}

	/** DELETE /v1/documents. */
	public function delete( string $source, string $source_id ): bool {
		$res = $this->client()->request(
			'DELETE',
			'/v1/documents',
			array(
				'source'    => $source,
				'source_id' => $source_id,
			),
			array( 'timeout' => self::TIMEOUT )
		);
		return null === $res['error'];
	}

	private function enqueue_failures( array $failed, array $sources ): void {
		if ( ! $failed ) {
			return;
		}
		foreach ( $failed as $post_id => $op ) {
			$this->queue->add( (int) $post_id, $op, (string) ( $sources[ $post_id ] ?? '' ) );
		}
		// A sooner retry than the hourly event; WordPress ignores it when an
		// identical event is already due within ten minutes.
		wp_schedule_single_event( time() + 5 * MINUTE_IN_SECONDS, Rtac_Registry::CRON_SYNC_RETRY );
	}

	private function client(): Rtac_Client {
		// Built per use, not at boot: settings may change during the request (tests, the settings page).
		return $this->client ?? Rtac_Client::from_settings( $this->settings );
	}

	private static function empty_result(): array {
		return array(
			'upserted' => array(),
			'deleted'  => array(),
			'failed'   => array(),
		);
	}
}
