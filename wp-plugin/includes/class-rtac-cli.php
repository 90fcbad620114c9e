<?php
/**
 * WP-CLI commands: `wp rtac reindex`, `wp rtac sync-queue`.
 *
 * Registered only under WP-CLI, but the class needs nothing from WP-CLI
 * itself (all output goes through Rtac_CLI_Output), so tests can call
 * `( new Rtac_CLI( null, null, new Rtac_CLI_Output( false ) ) )->reindex()`.
 *
 * @package rtac
 */

defined( 'ABSPATH' ) || exit;

class Rtac_CLI {

	private Rtac_Reindexer $reindexer;
	private Rtac_Sync $sync;
	private Rtac_CLI_Output $out;

	public function __construct( ?Rtac_Reindexer $reindexer = null, ?Rtac_Sync $sync = null, ?Rtac_CLI_Output $out = null ) {
		$this->reindexer = $reindexer ?? rtac()->reindexer();
		$this->sync      = $sync ?? rtac()->sync();
		$this->out       = $out ?? new Rtac_CLI_Output();
	}

	public function output(): Rtac_CLI_Output {
		return $this->out;
	}

	/**
	 * Sends every published post, page, product and knowledge-base entry to the assistant.
	 *
	 * ## OPTIONS
	 *
	 * [--batch=<n>]
	 * : Posts per request.
	 * ---
	 * default: 20
	 * ---
	 *
	 * ## EXAMPLES
	 *
	 *     wp rtac reindex
	 *
	 * @param array $args       Positional arguments (none).
	 * @param array $assoc_args --batch.
	 * @return array{sent:int, total:int, ok:bool}
	 */
	public function reindex( $args = array(), $assoc_args = array() ): array {
		$size   = max( 1, min( 100, (int) ( $assoc_args['batch'] ?? Rtac_Reindexer::BATCH ) ) );
		$offset = 0;
		$sent   = 0;
		do {
			$r = $this->reindexer->batch( $offset, $size );
			if ( null !== $r['error'] ) {
				$this->out->error( $r['error'] );
				return array(
					'sent'  => $sent,
					'total' => $r['total'],
					'ok'    => false,
				);
			}
			$sent  += $r['sent'];
			$offset = $r['next_offset'];
			/* translators: 1: posts processed so far, 2: total posts. */
			$this->out->log( sprintf( __( 'Processed %1$d of %2$d', 'rtac' ), min( $offset, $r['total'] ), $r['total'] ) );
		} while ( ! $r['done'] );

		/* translators: %d: number of documents. */
		$this->out->success( sprintf( _n( 'Sent %d document.', 'Sent %d documents.', $sent, 'rtac' ), $sent ) );
		return array(
			'sent'  => $sent,
			'total' => $r['total'],
			'ok'    => true,
		);
	}

	/**
	 * Shows the failed syncs waiting for a retry, and retries them now.
	 *
	 * ## OPTIONS
	 *
	 * [--list]
	 * : Only list the queue; send nothing.
	 *
	 * ## EXAMPLES
	 *
	 *     wp rtac sync-queue
	 *     wp rtac sync-queue --list
	 *
	 * @subcommand sync-queue
	 *
	 * @param array $args       Positional arguments (none).
	 * @param array $assoc_args --list.
	 * @return array{queued:int, remaining:int}
	 */
	public function sync_queue( $args = array(), $assoc_args = array() ): array {
		$items = $this->sync->queue()->all();
		foreach ( $items as $item ) {
			/* translators: 1: post ID, 2: operation (upsert or delete), 3: post type, 4: failed attempts. */
			$this->out->log( sprintf( __( 'Post %1$d: %2$s (%3$s), %4$d failed attempts', 'rtac' ), $item['post_id'], $item['op'], $item['source'], $item['attempts'] ) );
		}
		$queued = count( $items );
		if ( ! empty( $assoc_args['list'] ) || 0 === $queued ) {
			/* translators: %d: number of queued posts. */
			$this->out->success( sprintf( _n( '%d post in the sync queue.', '%d posts in the sync queue.', $queued, 'rtac' ), $queued ) );
			return array(
				'queued'    => $queued,
				'remaining' => $queued,
			);
		}

		$this->sync->retry();
		$remaining = $this->sync->queue()->count();
		if ( $remaining > 0 ) {
			/* translators: %d: number of posts still queued. */
			$this->out->warning( sprintf( _n( '%d post could not be synced; it stays queued.', '%d posts could not be synced; they stay queued.', $remaining, 'rtac' ), $remaining ) );
		} else {
			$this->out->success( __( 'The sync queue is empty.', 'rtac' ) );
		}
		return array(
			'queued'    => $queued,
			'remaining' => $remaining,
		);
	}
}
